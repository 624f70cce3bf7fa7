/**
 * The database member of an archive must be a SQLite database of Lectern before a restore may
 * use it: the SQLite header, the migrations its manifest lists recorded in knex_migrations, every
 * table (with its columns) that those migrations create, and `PRAGMA integrity_check` answering
 * ok. Checksums only prove the member is what the backup wrote; this proves what was written is
 * a database Lectern can open. The expected schema is built by running the same migrations on an
 * in-memory database, so it never drifts from the code. The checks that read the file run in a
 * worker thread: an integrity check of a large database takes seconds, and the server keeps
 * answering meanwhile (the dashboard's dry run uses this too).
 */
import { once } from 'node:events'
import fsp from 'node:fs/promises'
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { z } from 'zod'
import { MIGRATIONS, sourceOf } from '../../migrations/index.js'
import type { Manifest } from './manifest.js'
import { asError } from '../store/worker-error.js'

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1')

type Schema = Record<string, string[]>

const InspectionSchema = z.union([
  z.object({ error: z.string() }),
  z.object({ migrations: z.array(z.string()).nullable(), tables: z.record(z.string(), z.array(z.string())), integrity: z.array(z.string()) }),
])

/** Why the database at `file` cannot be restored, or undefined when it can. */
export async function databaseProblem(file: string, manifest: Manifest): Promise<string | undefined> {
  const magic = Buffer.alloc(SQLITE_MAGIC.length)
  const handle = await fsp.open(file, 'r')
  try {
    await handle.read(magic, 0, magic.length, 0)
  } finally {
    await handle.close()
  }
  if (!magic.equals(SQLITE_MAGIC)) return 'its lectern.db is not a SQLite database'
  const found = await inspectDatabase(file)
  if ('error' in found) return `its lectern.db cannot be read as a SQLite database (${found.error})`
  if (found.migrations === null) return 'its lectern.db is not a Lectern database (no knex_migrations table)'
  if (found.migrations.join() !== manifest.migrations.join()) {
    return `its lectern.db records the migrations [${found.migrations.join(', ')}], its manifest [${manifest.migrations.join(', ')}]`
  }
  for (const [table, columns] of Object.entries(await expectedSchema(manifest.migrations))) {
    const actual = found.tables[table]
    if (!actual) return `its lectern.db lacks Lectern's table ${table}`
    const missing = columns.filter((column) => !actual.includes(column))
    if (missing.length > 0) return `its lectern.db's table ${table} lacks the columns ${missing.join(', ')}`
  }
  if (found.integrity.join() !== 'ok') return `its lectern.db fails SQLite's integrity check (${found.integrity.slice(0, 3).join('; ')})`
  return undefined
}

/** The tables and columns the listed migrations create, from an in-memory run of them. */
async function expectedSchema(migrations: string[]): Promise<Schema> {
  const wanted = new Set(migrations)
  // Loaded here, not with the module: every command's start imports restore, which imports this.
  const { default: knexFactory } = await import('knex')
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  try {
    await knex.migrate.latest({
      migrationSource: sourceOf(MIGRATIONS.filter(([name]) => wanted.has(name))),
    })
    const tables = (await knex.raw(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)) as { name: string }[]
    const schema: Schema = {}
    for (const { name } of tables) {
      schema[name] = ((await knex.raw(`SELECT name FROM pragma_table_info(?)`, [name])) as { name: string }[]).map((c) => c.name)
    }
    return schema
  } finally {
    await knex.destroy()
  }
}

async function inspectDatabase(file: string): Promise<z.infer<typeof InspectionSchema>> {
  const worker = new Worker(INSPECT_WORKER, { eval: true, workerData: { driver: require.resolve('better-sqlite3'), file } })
  const [message] = (await once(worker, 'message').catch((err: unknown) => Promise.reject(asError(err)))) as [unknown]
  await worker.terminate()
  return InspectionSchema.parse(message)
}

const require = createRequire(import.meta.url)
const INSPECT_WORKER = `
  const { parentPort, workerData } = require('node:worker_threads')
  const Database = require(workerData.driver)
  let db
  try {
    db = new Database(workerData.file, { readonly: true, fileMustExist: true })
    const tables = {}
    for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()) {
      tables[name] = db.prepare('SELECT name FROM pragma_table_info(?)').all(name).map((c) => c.name)
    }
    const migrations = tables.knex_migrations ? db.prepare('SELECT name FROM knex_migrations ORDER BY id').all().map((r) => r.name) : null
    const integrity = db.prepare('PRAGMA integrity_check').all().map((r) => String(r.integrity_check))
    parentPort.postMessage({ migrations, tables, integrity })
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) })
  } finally {
    if (db) db.close()
  }`
