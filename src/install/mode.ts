/**
 * The mode is a property of the data directory: `lectern serve` records the mode it runs in
 * (the stored setting install.mode), and a command told no mode (no --mode, LECTERN_MODE or
 * lectern.yaml) runs in the recorded one, so `lectern users create` on a cloud install's data
 * directory makes a cloud user with a personal space. Precedence: flag > env > lectern.yaml >
 * the data directory's recorded mode > onprem. An explicit mode other than the recorded one is
 * refused by every command (refuseOtherMode). On PostgreSQL the mode is recorded in the install's
 * database instead, and read once the configuration has resolved (withDatabaseMode).
 */
import fs from 'node:fs'
import { MODES, type Mode, type ResolvedConfig } from '../config.js'
import { LecternError } from '../errors.js'
import { dataPaths } from './paths.js'
import { settingOfFile } from '../store/database-file.js'
import { SETTING_KEYS, type SettingsRepository } from '../store/settings.js'

const isMode = (value: unknown): value is Mode => MODES.includes(value as Mode)

/**
 * The mode recorded in a data directory, read without migrating, creating or leaving anything
 * behind (settingOfFile); undefined for a new directory.
 */
export function recordedMode(dataDir: string): Mode | undefined {
  const file = dataPaths(dataDir).database
  if (!fs.existsSync(file)) return undefined
  const value = settingOfFile(file, SETTING_KEYS.installMode)
  return isMode(value) ? value : undefined
}

/** `resolved` with the data directory's recorded mode when nothing else set one. */
export function withRecordedMode(resolved: ResolvedConfig, recorded = recordedMode(resolved.config.dataDir)): ResolvedConfig {
  if (resolved.sources.mode !== 'default' || recorded === undefined) return resolved
  const mode = recorded
  return { ...resolved, config: { ...resolved.config, mode }, sources: { ...resolved.sources, mode: 'data-dir' }, written: { ...resolved.written, mode } }
}

/**
 * On PostgreSQL (DATABASE_URL) the mode is recorded in the install's database, which is read over
 * the network once the configuration has resolved: `resolved` with that mode when nothing else set
 * one, and another explicit mode refused (unless `switching`), as withRecordedMode and
 * refuseOtherMode do for a data directory. On SQLite, `resolved` as it is (they already ran).
 */
export async function withDatabaseMode(resolved: ResolvedConfig, switching = false): Promise<ResolvedConfig> {
  const url = resolved.config.database.url
  if (url === '') return resolved
  const { settingOfDatabase } = await import('../store/postgres.js')
  const value = await settingOfDatabase(url, SETTING_KEYS.installMode)
  const recorded = isMode(value) ? value : undefined
  const adopted = withRecordedMode(resolved, recorded)
  if (!switching) refuseOtherMode(adopted, recorded, "This install's database")
  return adopted
}

/** Where an explicit mode came from, as the person typed it. */
function modeOrigin(resolved: ResolvedConfig): string {
  const source = resolved.sources.mode
  if (source === 'flag') return '--mode'
  if (source === 'env') return 'LECTERN_MODE'
  if (source === 'file') return `mode in ${resolved.file ?? 'lectern.yaml'}`
  return 'the data directory when the command started'
}

/**
 * Refuses a mode other than the one the data directory records, before anything opens it: a
 * cloud data directory run on-premise (or the reverse) would run jobs without cloud mode's
 * private-address guard, make users without personal spaces, or open libraries that teamspaces
 * closed. Switching is deliberate: `lectern config set install.mode <mode>` with the server stopped.
 */
export function refuseOtherMode(resolved: ResolvedConfig, recorded = recordedMode(resolved.config.dataDir), where = 'This data directory'): void {
  const { mode } = resolved.config
  if (recorded === undefined || recorded === mode) return
  const origin = modeOrigin(resolved)
  throw new LecternError(
    'validation_error',
    `${where} was set up in ${recorded} mode and ${origin} asks for ${mode} mode. Run without --mode (and without LECTERN_MODE or mode in lectern.yaml) to use ${recorded} mode; to switch it to ${mode} for good, stop the server and run \`lectern config set install.mode ${mode}\` first.`,
  )
}

/**
 * Records the mode of a data directory that has none yet: at `lectern serve`'s start, and when a
 * command that writes is told a mode (a directory set up with `LECTERN_MODE=cloud lectern users
 * create` stays cloud at the next plain `serve`). The caller has already refused another mode.
 */
export async function recordInstallMode(settings: SettingsRepository, mode: Mode): Promise<void> {
  if (!isMode(await settings.get<unknown>(SETTING_KEYS.installMode))) await settings.set(SETTING_KEYS.installMode, mode)
}
