/**
 * SQLite database files other than the open store's connection: the snapshot a backup takes
 * (VACUUM INTO, on a thread of its own), what a snapshot or an archive's copy of the database
 * holds, a setting read from a data directory that is not opened, and the audit events of a
 * database a restore set aside.
 */
import { once } from 'node:events'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import Database from 'better-sqlite3'
import { createAuditRepository, type AuditEvent } from './audit.js'
import { readBackupFacts, type SnapshotFacts } from './backup-facts.js'
import { openConnection, type Db } from './db.js'
import { createSqliteSql } from './sqlite-sql.js'
import { asError } from './worker-error.js'

/**
 * Writes a consistent copy of the database to `target`. VACUUM INTO is one synchronous SQLite
 * call that lasts seconds on a large database: it runs in a worker thread so the server's event
 * loop keeps answering requests meanwhile.
 */
export async function snapshotDatabase(database: string, target: string): Promise<void> {
  const worker = new Worker(SNAPSHOT_WORKER, { eval: true, workerData: { driver: require.resolve('better-sqlite3'), database, target } })
  // `once` rejects with the worker's error if it throws before exiting.
  const [exitCode] = (await once(worker, 'exit').catch((err: unknown) => Promise.reject(asError(err)))) as [number]
  if (exitCode !== 0) throw new Error(`the database snapshot worker exited with code ${exitCode}`)
}

const require = createRequire(import.meta.url)
const SNAPSHOT_WORKER = `
  const { workerData } = require('node:worker_threads')
  const Database = require(workerData.driver)
  const db = new Database(workerData.database, { readonly: true, fileMustExist: true })
  try {
    db.pragma('busy_timeout = 5000')
    db.prepare('VACUUM INTO ?').run(workerData.target)
  } finally {
    db.close()
  }`

/** What a snapshot holds, read from the snapshot itself. */
export async function readSnapshotFacts(file: string): Promise<SnapshotFacts> {
  const db = openConnection(file, { readonly: true })
  try {
    return await readBackupFacts(createSqliteSql(db))
  } finally {
    db.close()
  }
}

/**
 * A setting's stored value (parsed JSON) in a database file, read without migrating or creating
 * anything; undefined when the file has no settings table or no such row. The connection is a
 * writable one that writes nothing: a read-only connection to a WAL database leaves -wal and
 * -shm files behind, and a command that refuses (`lectern restore` without --yes) must leave the
 * directory exactly as it was; the last writable connection to close removes them. A file in a
 * directory it may not write is read read-only.
 */
export function settingOfFile(file: string, key: string): unknown {
  let db: Db
  try {
    db = new Database(file, { fileMustExist: true })
  } catch {
    db = openConnection(file, { readonly: true })
  }
  try {
    db.pragma('busy_timeout = 5000')
    const hasSettings = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'").get()
    if (!hasSettings) return undefined
    const row = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?').get(key)
    return row ? (JSON.parse(row.value) as unknown) : undefined
  } finally {
    db.close()
  }
}

/**
 * The audit events of a database file newer than `after` (an ISO time), oldest first: what a
 * restore carries over from the database it set aside. None when the file has no audit log.
 */
export async function auditEventsOfFile(file: string, after: string): Promise<AuditEvent[]> {
  const db = openConnection(file, { readonly: true })
  try {
    const hasLog = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_events'").get()
    if (!hasLog) return []
    // `after: 0` reads the log oldest first, as it is carried over.
    const since = await createAuditRepository(createSqliteSql(db)).list({ since: after }, { limit: Number.MAX_SAFE_INTEGER, after: 0 })
    return since.filter((event) => event.at > after)
  } finally {
    db.close()
  }
}
