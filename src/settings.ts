/**
 * The settings an operator changes at run time (`lectern config set`, the dashboard), stored in
 * the database so every process sees a change at its next read, without a restart. Together
 * with the start-up settings of config.ts this is the whole catalogue `lectern config get`
 * shows, each value with where it came from.
 */
import fs from 'node:fs'
import path from 'node:path'
import { viewBackupConfig } from './backup/config.js'
import { MODES, STARTUP_SETTINGS, withoutPassword, type Mode, type ResolvedConfig, type SettingDef } from './config.js'
import { configuredEmbedding } from './embed/pool.js'
import { LecternError } from './errors.js'
import { parsePublicKey, type StoredPublicKey } from './license/keys.js'
import type { Store } from './store/index.js'
import { SETTING_KEYS, type SettingsRepository } from './store/settings.js'

export interface StoredSettingSpec<T> {
  key: (typeof SETTING_KEYS)[keyof typeof SETTING_KEYS]
  description: string
  default: T
  /** Turns the text an operator typed into the stored value; throws validation_error. */
  parse(text: string, cwd: string): T
  /** The value as `config get` shows it. */
  show(value: T): unknown
}

const boolean = (text: string): boolean => {
  if (/^(true|yes|on|1)$/i.test(text)) return true
  if (/^(false|no|off|0)$/i.test(text)) return false
  throw new LecternError('validation_error', `Expected true or false, got "${text}".`)
}

/** A retention in days, 0 (keep everything) to ten years. */
function wholeDays(text: string): number {
  const days = Number(text)
  if (/^\d+$/.test(text.trim()) && days <= 3650) return days
  throw new LecternError('validation_error', `Expected a whole number of days from 0 to 3650, got "${text}".`)
}

export const SETTINGS = {
  'mcp.requireKey': {
    key: SETTING_KEYS.mcpRequireKey,
    description: 'Whether /mcp refuses calls without an API key (GET /api/auth/mcp reports it).',
    default: false,
    parse: boolean,
    show: (value: boolean) => value,
  } satisfies StoredSettingSpec<boolean>,
  'access.restrictNewLibraries': {
    key: SETTING_KEYS.restrictNewLibraries,
    description: 'On-premise library access control: whether libraries nobody has configured (`lectern libraries access`) are restricted to admins and granted users rather than open to everyone.',
    default: false,
    parse: boolean,
    show: (value: boolean) => value,
  } satisfies StoredSettingSpec<boolean>,
  'jobs.retentionDays': {
    key: SETTING_KEYS.jobsRetentionDays,
    description: 'Days an ended job (and its log lines) is kept; each library keeps its newest ended job however old. 0 keeps every job.',
    default: 30,
    parse: (text: string) => wholeDays(text),
    show: (value: number) => value,
  } satisfies StoredSettingSpec<number>,
  'audit.retentionDays': {
    key: SETTING_KEYS.auditRetentionDays,
    description: 'Days an audit event is kept (`lectern audit`); older ones are removed. 0 keeps every event.',
    default: 365,
    parse: (text: string) => wholeDays(text),
    show: (value: number) => value,
  } satisfies StoredSettingSpec<number>,
  'install.mode': {
    key: SETTING_KEYS.installMode,
    description: 'The mode this data directory runs in, recorded by the first `lectern serve` (or a command that writes, told a mode); commands told no mode (--mode, LECTERN_MODE, lectern.yaml) run in it, and every command refuses another. Set it, with the server stopped, to switch the install deliberately.',
    default: null as Mode | null,
    parse(text: string): Mode | null {
      if ((MODES as readonly string[]).includes(text)) return text as Mode
      throw new LecternError('validation_error', `Expected ${MODES.join(' or ')}, got "${text}".`)
    },
    show: (value: Mode | null) => value ?? '',
  } satisfies StoredSettingSpec<Mode | null>,
  'license.publicKeyFile': {
    key: SETTING_KEYS.licensePublicKeyFile,
    description: 'PEM file of the Ed25519 key that verifies offline licenses; read and checked when set (LECTERN_LICENSE_PUBLIC_KEY takes precedence). Empty to unset.',
    default: null as StoredPublicKey | null,
    parse(text: string, cwd: string): StoredPublicKey | null {
      if (text.trim() === '') return null
      const file = path.resolve(cwd, text)
      let pem: string
      try {
        pem = fs.readFileSync(file, 'utf8')
      } catch (err) {
        throw new LecternError('validation_error', `Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`)
      }
      parsePublicKey(pem)
      return { file, pem }
    },
    show: (value: StoredPublicKey | null) => value?.file ?? '',
  } satisfies StoredSettingSpec<StoredPublicKey | null>,
} as const

export type SettingName = keyof typeof SETTINGS
export type SettingValue<K extends SettingName> = (typeof SETTINGS)[K]['default']

export function isSettingName(name: string): name is SettingName {
  return Object.hasOwn(SETTINGS, name)
}

export async function readSetting<K extends SettingName>(settings: SettingsRepository, name: K): Promise<SettingValue<K>> {
  return await settings.get<SettingValue<K>>(SETTINGS[name].key) ?? SETTINGS[name].default
}

export async function writeSetting(settings: SettingsRepository, name: string, text: string, cwd = process.cwd()): Promise<{ name: SettingName; value: unknown }> {
  if (!isSettingName(name)) {
    const startup = STARTUP_SETTINGS.find((s) => s.key === name)
    if (startup) {
      throw new LecternError(
        'validation_error',
        `${name} is a start-up setting: set it with ${[startup.flag && `--${startup.flag}`, startup.env, `"${name}" in lectern.yaml`].filter(Boolean).join(', ')}.`,
      )
    }
    throw new LecternError('validation_error', `Unknown setting "${name}". Settings changed with \`lectern config set\`: ${[...Object.keys(SETTINGS), 'embedding.provider'].join(', ')}.`)
  }
  const spec = SETTINGS[name] as StoredSettingSpec<unknown>
  const value = spec.parse(text, cwd)
  await settings.set(spec.key, value)
  return { name, value: spec.show(value) }
}

export interface SettingRow {
  name: string
  value: unknown
  /** `flag --port`, `env PORT`, `file <path>`, `data directory (install.mode)`, default (start-up settings) or stored (changed with `lectern config set`). */
  source: string
  description: string
}

/** Where a start-up setting came from, precisely: `flag --port`, `env PORT`, `file /etc/lectern/lectern.yaml`, `default`. */
function describeSource(def: SettingDef, resolved: ResolvedConfig): string {
  const source = resolved.sources[def.key]
  if (source === 'flag') return `flag --${def.flag}`
  if (source === 'env') return `env ${def.env}`
  if (source === 'file') return `file ${resolved.file}`
  if (source === 'data-dir') return 'data directory (install.mode)'
  return source
}

/** A row's value for people: as written where the catalogue says so (`25%` rather than its bytes), else strings as they are and anything else as JSON. */
export function settingText(row: SettingRow, resolved: ResolvedConfig): string {
  if (STARTUP_SETTINGS.find((def) => def.key === row.name)?.showWritten) return String(resolved.written[row.name]).trim()
  return typeof row.value === 'string' ? row.value : JSON.stringify(row.value)
}

/** A start-up setting's value as `config get` shows it, in either output: a database URL's password hidden. */
const shownValue = (key: string, value: unknown): unknown => (key === 'database.url' ? withoutPassword(value as string) : value)

/** Every setting with its value and where it came from: start-up settings, then stored ones. */
export async function describeSettings(resolved: ResolvedConfig, store: Store): Promise<SettingRow[]> {
  const rows: SettingRow[] = STARTUP_SETTINGS.map((def) => ({
    name: def.key,
    value: shownValue(def.key, def.key.split('.').reduce<unknown>((o, part) => (o as Record<string, unknown>)[part], resolved.config)),
    source: describeSource(def, resolved),
    description: def.description,
  }))
  for (const [name, spec] of Object.entries(SETTINGS) as Array<[SettingName, StoredSettingSpec<unknown>]>) {
    const stored = await store.settings.get(spec.key)
    rows.push({ name, value: spec.show(stored ?? spec.default), source: stored === undefined ? 'default' : 'stored', description: spec.description })
  }
  const embedding = await configuredEmbedding(store)
  const embeddingStored = await store.settings.get(SETTING_KEYS.embedding) !== undefined
  rows.push({
    name: 'embedding',
    value: { provider: embedding.provider, ...(embedding.model ? { model: embedding.model } : {}), ...(embedding.host ? { host: embedding.host } : {}), ...(embedding.apiKey ? { apiKey: '(set)' } : {}) },
    source: embeddingStored ? 'stored' : 'default',
    description: 'Embedding provider of new snippet sets (`lectern config set embedding.provider`).',
  })
  const backup = await viewBackupConfig(store)
  rows.push({
    name: 'backup',
    value: { destination: backup.destination, schedule: backup.schedule, retention: backup.retention },
    source: await store.settings.get(SETTING_KEYS.backupConfig) === undefined ? 'default' : 'stored',
    description: 'Backup destination, schedule and retention (`lectern backup config set`).',
  })
  return rows
}
