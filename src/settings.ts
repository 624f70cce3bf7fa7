/**
 * The settings an operator can change at run time (`lectern config`), each with its type,
 * default and meaning. Stored as JSON in the settings table; read on use, so a change made by
 * the CLI reaches a running server without a restart.
 */
import { LecternError } from './errors.js'
import type { SettingsRepository } from './store/settings.js'

interface SettingSpec<T> {
  description: string
  default: T
  parse(text: string): T
}

const boolean = (text: string): boolean => {
  if (/^(true|yes|on|1)$/i.test(text)) return true
  if (/^(false|no|off|0)$/i.test(text)) return false
  throw new LecternError('validation_error', `Expected true or false, got "${text}".`)
}

export const SETTINGS = {
  'mcp.requireKey': {
    description: 'Whether /mcp refuses calls without an API key (GET /api/auth/mcp reports it).',
    default: false,
    parse: boolean,
  } satisfies SettingSpec<boolean>,
  'license.publicKeyFile': {
    description: 'PEM file of the Ed25519 key that verifies offline licenses (LECTERN_LICENSE_PUBLIC_KEY takes precedence).',
    default: '',
    parse: (text: string) => text,
  } satisfies SettingSpec<string>,
} as const

export type SettingName = keyof typeof SETTINGS
export type SettingValue<K extends SettingName> = (typeof SETTINGS)[K]['default']

export function isSettingName(name: string): name is SettingName {
  return Object.hasOwn(SETTINGS, name)
}

export function readSetting<K extends SettingName>(settings: SettingsRepository, name: K): SettingValue<K> {
  return settings.get<SettingValue<K>>(name) ?? SETTINGS[name].default
}

export function writeSetting(settings: SettingsRepository, name: string, text: string): { name: SettingName; value: unknown } {
  if (!isSettingName(name)) {
    throw new LecternError('validation_error', `Unknown setting "${name}". Known settings: ${Object.keys(SETTINGS).join(', ')}.`)
  }
  const value = SETTINGS[name].parse(text)
  settings.set(name, value)
  return { name, value }
}
