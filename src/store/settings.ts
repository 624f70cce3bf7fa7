/** Key/value settings stored as JSON. */
import type { Db } from './db.js'
import { nowIso } from './db.js'

export interface SettingsRepository {
  get<T>(key: string): T | undefined
  set(key: string, value: unknown): void
}

export function createSettingsRepository(db: Db): SettingsRepository {
  const select = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?')
  const upsert = db.prepare(
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  )
  return {
    get<T>(key: string) {
      const row = select.get(key)
      return row ? (JSON.parse(row.value) as T) : undefined
    },
    set(key, value) {
      upsert.run(key, JSON.stringify(value), nowIso())
    },
  }
}
