/**
 * Flags shared by the commands. Start-up settings are resolved by src/config.ts (flag >
 * environment > lectern.yaml > default), so these flags carry no oclif `env` or `default`:
 * oclif would otherwise fill them before the configuration file is consulted.
 */
import { Flags } from '@oclif/core'
import { STARTUP_SETTINGS, type SettingDef } from '../src/config.js'

/** A setting's default as help and the README show it: a value as JSON, a rule that depends on the host in words. */
export const defaultText = (def: SettingDef): string => (def.hostDefault ? String(def.default) : JSON.stringify(def.default))

/** "(env X; default Y)" for a start-up setting's flag summary. */
export function settingHint(key: string): string {
  const def = STARTUP_SETTINGS.find((s) => s.key === key)
  if (!def) throw new Error(`no start-up setting ${key}`)
  const parts = [def.env && `env ${def.env}`, `lectern.yaml ${def.key}`, `default ${defaultText(def)}`].filter(Boolean)
  return `${def.description} (${parts.join('; ')})`
}

export const dataDirFlag = Flags.string({ summary: settingHint('dataDir'), helpGroup: 'GLOBAL' })

export const configFlag = Flags.string({
  summary: 'Configuration file (env LECTERN_CONFIG; default ./lectern.yaml, else /etc/lectern/lectern.yaml, when it exists). Flags and environment variables override it.',
  helpGroup: 'GLOBAL',
})

export const modeFlag = Flags.string({ summary: settingHint('mode'), options: ['onprem', 'cloud'] })
