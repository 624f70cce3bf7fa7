/**
 * Key/value settings stored as JSON. Every key the database holds is named here, so the whole
 * namespace is visible in one place: the operator's settings (catalogued with their meaning in
 * src/settings.ts) and the state modules keep between runs.
 */
import { nowIso } from './db.js'
import type { Sql } from './sql.js'

export const SETTING_KEYS = {
  /** Operator settings (src/settings.ts). */
  mcpRequireKey: 'mcp.requireKey',
  licensePublicKeyFile: 'license.publicKeyFile',
  restrictNewLibraries: 'access.restrictNewLibraries',
  jobsRetentionDays: 'jobs.retentionDays',
  auditRetentionDays: 'audit.retentionDays',
  /** The mode `lectern serve` runs the data directory in (src/install/mode.ts). */
  installMode: 'install.mode',
  embedding: 'embedding',
  backupConfig: 'backup.config',
  /** Single sign-on as configured from the dashboard (src/sso/configuration.ts). */
  ssoConfig: 'sso.config',
  /** GitOps: the manifest repository (src/gitops/config.ts). */
  gitopsConfig: 'gitops.config',
  /** Sealed secrets. */
  backupS3Secret: 'backup.s3Secret',
  licenseSigningKey: 'license.signingKey',
  ssoClientSecret: 'sso.clientSecret',
  secretsCanary: 'secrets.canary',
  /** State. */
  licenseTimeHighWater: 'license.timeHighWater',
  backupLastResult: 'backup.lastResult',
  /** The last GitOps sync: its commit and what it did (src/gitops/reconcile.ts). */
  gitopsLastSync: 'gitops.lastSync',
  /** The last minute a scheduled backup started in, whichever replica ran it (src/backup/runner.ts). */
  backupScheduledSlot: 'backup.scheduledSlot',
  /** sha256 of the first-run setup token, while no admin exists (src/install/setup.ts). */
  setupTokenHash: 'setup.tokenHash',
  /** Where that token's file is: the host and data directory of the server that made it (src/install/setup.ts). */
  setupTokenWhere: 'setup.tokenWhere',
} as const

export type SettingKey = (typeof SETTING_KEYS)[keyof typeof SETTING_KEYS]

export interface SettingsRepository {
  get<T>(key: SettingKey): Promise<T | undefined>
  set(key: SettingKey, value: unknown): Promise<void>
  remove(key: SettingKey): Promise<void>
}

export function createSettingsRepository(sql: Sql): SettingsRepository {
  return {
    async remove(key) {
      await sql.run('DELETE FROM settings WHERE key = ?', [key])
    },
    async get<T>(key: SettingKey) {
      const row = await sql.get<{ value: string }>('SELECT value FROM settings WHERE key = ?', [key])
      return row ? (JSON.parse(row.value) as T) : undefined
    },
    async set(key, value) {
      await sql.run(
        `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [key, JSON.stringify(value), nowIso()],
      )
    },
  }
}
