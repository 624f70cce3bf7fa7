/**
 * Moving an install from SQLite to PostgreSQL (`lectern migrate-store`): every row of the data
 * directory's database, and the files its jobs read (uploaded specs, staged imports), copied into
 * an empty PostgreSQL database that replicas then serve.
 *
 * Guarantees:
 * - The data directory is only read, under its lock (no server writes while it is copied), after
 *   its database is migrated to this build's schema as any start would. It is left as it was: it
 *   stays the way back until the replicas serve.
 * - The target must hold no data (a database with no tables, or this schema with no rows); it is
 *   migrated to the same schema, then written in one transaction, which commits only after every
 *   table's row count and checksum read back from PostgreSQL equal the SQLite file's, and every
 *   file's SHA-256 its copy's. A copy that fails or differs leaves the target with no rows.
 * - Keys are copied as they are, and each identity moves past the largest key the install ever
 *   handed out (SQLite's AUTOINCREMENT counter included), so no key is ever reused.
 * - The secrets stay sealed: the target needs the data directory's own key (LECTERN_SECRET_KEY),
 *   checked before anything is written and never shown.
 *
 * A checksum is order-free: the sum, modulo 2^256, of each row's SHA-256 over its values as the
 * store reads them (booleans 1 and 0, integers as numbers, binary as bytes), so the two databases
 * may return rows in any order. What describes running processes rather than the install (the
 * replicas' heartbeats, the rate-limit windows) is not copied.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { LecternError } from '../errors.js'
import type { DataPaths } from '../install/paths.js'
import { openConnection, type Db } from './db.js'
import { createInputFilesRepository } from './input-files.js'
import { migratePostgres, unreachable } from './postgres.js'
import { connectPostgres, type PostgresSql } from './postgres-sql.js'
import type { SqlValue } from './sql.js'

export interface MigrateStoreOptions {
  /** The target database's URL. */
  url: string
  /** How the target is shown in messages: its URL without the password. */
  shownAs: string
  /** LECTERN_SECRET_KEY: must be the data directory's own key. */
  key: Buffer
  progress?: (message: string) => void
}

export interface TableCopy {
  table: string
  rows: number
  /** The order-free checksum both databases agreed on (hex). */
  checksum: string
}

export interface MigrateStoreResult {
  tables: TableCopy[]
  rows: number
  /** The input files copied into the database, by name, with their size and SHA-256. */
  files: Array<{ name: string; bytes: number; sha256: string }>
}

/** Tables of knex's own, and what running processes keep: never copied. */
const NOT_COPIED = new Set(['knex_migrations', 'knex_migrations_lock', 'replicas', 'rate_counts'])
/** The one row the schema itself holds; its version is copied once every other row is in. */
const CATALOG_VERSION = 'catalog_version'
/** Rows per INSERT, and the bytes of values after which a batch is sent sooner. */
const BATCH_ROWS = 500
const BATCH_BYTES = 4 * 1024 * 1024
/** Rows read back per FETCH while checking. */
const FETCH_ROWS = 2000
/** Where the data directory keeps files that become input files on PostgreSQL (src/sources/input-files.ts). */
const INPUT_FILE_DIRS = ['uploads', 'imports']

const MASK = (1n << 256n) - 1n

/** The order-free checksum of a table being read: see the module's comment. */
class TableSum {
  rows = 0
  private sum = 0n

  add(values: readonly SqlValue[]): void {
    const hash = createHash('sha256')
    for (const value of values) {
      if (value === null) hash.update('n;')
      else if (Buffer.isBuffer(value)) hash.update(`b${value.length};`).update(value)
      else if (typeof value === 'string') hash.update(`s${Buffer.byteLength(value)};`).update(value)
      else hash.update(`i${String(value)};`)
    }
    this.sum = (this.sum + BigInt(`0x${hash.digest('hex')}`)) & MASK
    this.rows++
  }

  get checksum(): string {
    return this.sum.toString(16).padStart(64, '0')
  }
}

/** Refuses a key other than the data directory's, without showing either. */
export function refuseOtherKey(paths: DataPaths, key: Buffer): void {
  const own = fs.readFileSync(paths.secretKey)
  if (own.length !== key.length || !timingSafeEqual(own, key)) {
    throw new LecternError(
      'secret_key_mismatch',
      `LECTERN_SECRET_KEY is not the key of ${paths.root} (its secret.key): replicas given this key could not open the secrets its database sealed. Set it to that file's 32 bytes in hex, e.g. LECTERN_SECRET_KEY=$(od -An -vtx1 ${paths.secretKey} | tr -d ' \\n'), and give every replica the same. Nothing was changed.`,
    )
  }
}

/**
 * Refuses a target that holds data, before anything is written to it: tables that are not this
 * schema's, or any row beyond the one the schema starts with.
 */
export async function refuseTargetWithData(url: string, shownAs: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  client.on('error', () => {})
  await client.connect().catch((err: unknown) => {
    const cause = unreachable(url, err)
    return Promise.reject(new LecternError('database_unreachable', `${cause.message} Nothing was changed.`, {}, { cause: err }))
  })
  try {
    const tables = (await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")).rows.map((r) => r.name)
    if (tables.length === 0) return
    if (!tables.includes('knex_migrations')) {
      throw new LecternError('restore_refused', `${shownAs} holds ${tables.length === 1 ? '1 table that is' : `${tables.length} tables that are`} not a Lectern store's: migrate-store copies into an empty database. Nothing was changed.`)
    }
    const holding: string[] = []
    for (const table of tables.filter((t) => t !== CATALOG_VERSION && !t.startsWith('knex_'))) {
      if ((await client.query(`SELECT 1 FROM ${quoted(table)} LIMIT 1`)).rowCount) holding.push(table)
    }
    if (holding.length > 0) {
      throw new LecternError('restore_refused', `${shownAs} already holds a Lectern install (rows in ${holding.join(', ')}): migrate-store copies into an empty database. Create a new one, or drop this one's tables if it is a failed attempt's. Nothing was changed.`)
    }
  } finally {
    await client.end()
  }
}

/**
 * Copies the SQLite database at `paths.database` (already migrated, its directory locked by the
 * caller) and its input files into the empty PostgreSQL database at `options.url`.
 */
export async function migrateStore(paths: DataPaths, options: MigrateStoreOptions): Promise<MigrateStoreResult> {
  const progress = options.progress ?? (() => {})
  refuseOtherKey(paths, options.key)
  await refuseTargetWithData(options.url, options.shownAs)
  progress(`Creating the schema in ${options.shownAs}`)
  await migratePostgres(options.url)
  const source = openConnection(paths.database, { readonly: true })
  const target = connectPostgres(options.url, { max: 1 })
  try {
    const order = await copyOrder(source, target)
    return await target.transaction(async () => {
      // Taken the write lock: another migrate-store (or a replica) that wrote meanwhile is refused here.
      const written = (await target.get<{ n: number }>('SELECT count(*) AS n FROM settings'))!.n
      if (written > 0) throw new LecternError('restore_refused', `${options.shownAs} was written to while this copy began: migrate-store copies into an empty database. Nothing was changed.`)
      const tables: TableCopy[] = []
      // Each table's columns, compared between the two schemas once: the copy and its check read them.
      const columns = new Map<string, string[]>()
      for (const table of order) columns.set(table, await columnsOf(source, target, table))
      for (const table of order) tables.push(await copyTable(source, target, table, columns.get(table)!, progress))
      await copyCatalogVersion(source, target)
      await moveIdentities(source, target)
      for (const copied of tables) await verifyTable(target, copied, columns.get(copied.table)!, progress)
      const files = await copyInputFiles(paths, target, progress)
      return { tables, rows: tables.reduce((n, t) => n + t.rows, 0), files }
    })
  } finally {
    source.close()
    await target.end()
  }
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`

/** The tables to copy, parents before the tables whose foreign keys name them; both databases must have the same ones. */
async function copyOrder(source: Db, target: PostgresSql): Promise<string[]> {
  const sqliteTables = (source.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[]).filter((t) => !NOT_COPIED.has(t) && t !== CATALOG_VERSION)
  const postgresTables = (await target.all<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'")).map((r) => r.name).filter((t) => !NOT_COPIED.has(t) && t !== CATALOG_VERSION)
  const missing = sqliteTables.filter((t) => !postgresTables.includes(t))
  const extra = postgresTables.filter((t) => !sqliteTables.includes(t))
  if (missing.length > 0 || extra.length > 0) {
    throw new LecternError('internal_error', `The two schemas differ (only in SQLite: ${missing.join(', ') || 'none'}; only in PostgreSQL: ${extra.join(', ') || 'none'}). Nothing was changed.`)
  }
  const parents = new Map<string, Set<string>>(sqliteTables.map((t) => [t, new Set<string>()]))
  const keys = await target.all<{ child: string; parent: string }>(
    "SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace",
  )
  for (const { child, parent } of keys) if (child !== parent && parents.has(child) && parents.has(parent)) parents.get(child)!.add(parent)
  const order: string[] = []
  const left = new Set([...parents.keys()].sort())
  while (left.size > 0) {
    const ready = [...left].filter((t) => [...parents.get(t)!].every((p) => !left.has(p)))
    if (ready.length === 0) throw new LecternError('internal_error', `The foreign keys of ${[...left].join(', ')} form a cycle; they cannot be copied table by table.`)
    for (const table of ready) {
      order.push(table)
      left.delete(table)
    }
  }
  return order
}

/** The columns of a table in SQLite, which PostgreSQL must have too. */
async function columnsOf(source: Db, target: PostgresSql, table: string): Promise<string[]> {
  const columns = (source.prepare(`PRAGMA table_info(${quoted(table)})`).all() as Array<{ name: string }>).map((c) => c.name)
  const theirs = new Set((await target.all<{ name: string }>("SELECT column_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ?", [table])).map((r) => r.name))
  const differ = columns.filter((c) => !theirs.has(c))
  if (differ.length > 0 || theirs.size !== columns.length) {
    throw new LecternError('internal_error', `The table ${table} has other columns in PostgreSQL than in SQLite (${differ.join(', ') || `${theirs.size} against ${columns.length}`}). Nothing was changed.`)
  }
  return columns
}

const sizeOf = (value: SqlValue): number => (Buffer.isBuffer(value) ? value.length : typeof value === 'string' ? value.length : 8)

async function copyTable(source: Db, target: PostgresSql, table: string, columns: string[], progress: (message: string) => void): Promise<TableCopy> {
  const total = source.prepare(`SELECT count(*) FROM ${quoted(table)}`).pluck().get() as number
  const list = columns.map(quoted).join(', ')
  const sum = new TableSum()
  let batch: SqlValue[][] = []
  let bytes = 0
  const send = async () => {
    if (batch.length === 0) return
    const row = `(${columns.map(() => '?').join(', ')})`
    try {
      await target.run(`INSERT INTO ${quoted(table)} (${list}) VALUES ${batch.map(() => row).join(', ')}`, batch.flat())
    } catch (err) {
      throw new LecternError('internal_error', `Copying ${table} into PostgreSQL failed: ${(err as Error).message}. Nothing was changed.`, {}, { cause: err })
    }
    batch = []
    bytes = 0
    progress(`Copying ${table}: ${sum.rows.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows`)
  }
  for (const values of source.prepare(`SELECT ${list} FROM ${quoted(table)}`).raw().iterate() as IterableIterator<SqlValue[]>) {
    sum.add(values)
    batch.push(values)
    bytes += values.reduce((n: number, v) => n + sizeOf(v), 0)
    if (batch.length >= BATCH_ROWS || bytes >= BATCH_BYTES) await send()
  }
  await send()
  return { table, rows: sum.rows, checksum: sum.checksum }
}

/** The catalogue version as SQLite had it: the triggers moved it while the rows went in. */
async function copyCatalogVersion(source: Db, target: PostgresSql): Promise<void> {
  const version = source.prepare('SELECT version FROM catalog_version WHERE id = 1').pluck().get() as number
  await target.run('UPDATE catalog_version SET version = ? WHERE id = 1', [version])
}

/** Moves each identity past the largest key its table holds, or ever handed out on SQLite (AUTOINCREMENT's counter). */
async function moveIdentities(source: Db, target: PostgresSql): Promise<void> {
  const counters = new Map((source.prepare('SELECT name, seq FROM sqlite_sequence').all() as Array<{ name: string; seq: number }>).map((r) => [r.name, r.seq]))
  const identities = await target.all<{ table: string; column: string }>("SELECT table_name AS \"table\", column_name AS \"column\" FROM information_schema.columns WHERE table_schema = 'public' AND is_identity = 'YES'")
  for (const { table, column } of identities) {
    const largest = (await target.get<{ n: number | null }>(`SELECT max(${quoted(column)}) AS n FROM ${quoted(table)}`))!.n ?? 0
    const next = Math.max(largest, counters.get(table) ?? 0)
    if (next > 0) await target.get('SELECT setval(pg_get_serial_sequence(?, ?), ?)', [table, column, next])
  }
}

/** Reads the table back from PostgreSQL and compares it with what was read from SQLite. */
async function verifyTable(target: PostgresSql, copied: TableCopy, columns: string[], progress: (message: string) => void): Promise<void> {
  progress(`Checking ${copied.table}`)
  const sum = new TableSum()
  const cursor = `migrate_${copied.table}`
  await target.run(`DECLARE ${quoted(cursor)} NO SCROLL CURSOR FOR SELECT ${columns.map(quoted).join(', ')} FROM ${quoted(copied.table)}`)
  for (;;) {
    const rows = await target.all<Record<string, SqlValue>>(`FETCH ${FETCH_ROWS} FROM ${quoted(cursor)}`)
    for (const row of rows) sum.add(columns.map((c) => row[c]!))
    if (rows.length < FETCH_ROWS) break
  }
  await target.run(`CLOSE ${quoted(cursor)}`)
  if (sum.rows !== copied.rows || sum.checksum !== copied.checksum) {
    throw new LecternError(
      'internal_error',
      `The copy of ${copied.table} differs from the SQLite table (${sum.rows} rows against ${copied.rows}${sum.rows === copied.rows ? ', other values' : ''}). Nothing was changed.`,
    )
  }
}

/** The files under the directories that hold input files, by their input-file names; temporary ones (dot files) left out. */
function inputFilesIn(paths: DataPaths): string[] {
  const names: string[] = []
  const walk = (dir: string) => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
      throw err
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue
      const file = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(file)
      else if (entry.isFile()) names.push(path.relative(paths.root, file).split(path.sep).join('/'))
    }
  }
  for (const dir of INPUT_FILE_DIRS) walk(path.join(paths.root, dir))
  return names.sort()
}

async function copyInputFiles(paths: DataPaths, target: PostgresSql, progress: (message: string) => void): Promise<MigrateStoreResult['files']> {
  const inputFiles = createInputFilesRepository(target)
  const files: MigrateStoreResult['files'] = []
  for (const name of inputFilesIn(paths)) {
    progress(`Copying ${name}`)
    const data = await fs.promises.readFile(path.join(paths.root, name))
    const sha256 = createHash('sha256').update(data).digest('hex')
    await inputFiles.put(name, [data])
    const copy = await inputFiles.read(name)
    if (!copy || createHash('sha256').update(copy).digest('hex') !== sha256) {
      throw new LecternError('internal_error', `The copy of ${name} in PostgreSQL differs from the file. Nothing was changed.`)
    }
    files.push({ name, bytes: data.length, sha256 })
  }
  return files
}
