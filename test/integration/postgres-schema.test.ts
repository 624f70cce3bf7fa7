/**
 * The PostgreSQL schema (migrations/postgres/) against SQLite's after all its migrations, on a
 * real PostgreSQL: tables, columns (type, NOT NULL, default), primary keys, unique keys, foreign
 * keys, checks, named indexes and the triggers that move the catalogue version are the same in
 * both, each in its dialect's own terms. A migration added to one dialect only fails here.
 */
import knex, { type Knex } from 'knex'
import pg from 'pg'
import { beforeAll, describe, expect, it } from 'vitest'
import { postgresMigrationSource } from '../../migrations/postgres/index.js'
import { openStore, sqliteOf } from '../../src/store/index.js'
import { startPostgres } from '../helpers/postgres.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

const defer = suiteTeardown()

/** SQLite keeps flags as INTEGER 0/1; PostgreSQL as boolean. */
const BOOLEAN_COLUMNS = new Set(['libraries.is_private', 'libraries.is_imported', 'licenses.offline', 'jobs.run_again'])

interface Column {
  /** `integer, generated`: a table's own key `pk`, which the database hands out (SQLite's rowid, an identity in PostgreSQL). */
  type: 'integer' | 'integer, generated' | 'boolean' | 'text' | 'text, case-insensitive' | 'binary'
  notNull: boolean
  default: string | null
}

interface Table {
  columns: Record<string, Column>
  primaryKey: string[]
  /** Column lists of unique keys (constraints, or unique indexes without a condition that are not named). */
  uniques: string[]
  /** `FOREIGN KEY (a) REFERENCES t(b)[ ON DELETE ...]` */
  foreignKeys: string[]
  /** `column: the values it allows` */
  checks: string[]
}

interface Schema {
  tables: Record<string, Table>
  /** Named indexes: `table (columns)`, unique or not, and their condition. */
  indexes: Record<string, string>
  /** `table EVENT[ OF columns][ WHEN condition]` of each trigger that moves the catalogue version. */
  catalogTriggers: string[]
}

const INTERNAL_TABLES = new Set(['knex_migrations', 'knex_migrations_lock', 'sqlite_sequence'])
const sorted = <T>(items: T[]) => [...items].sort()
const list = (columns: string) => columns.split(',').map((c) => c.trim()).join(', ')

/** A condition or default as both dialects can be compared: no casts, no outer parentheses, NEW/OLD in lower case. */
function normalise(sql: string): string {
  let text = sql.replace(/::[a-z ]+/g, '').replace(/\b(NEW|OLD)\./g, (m) => m.toLowerCase()).trim()
  while (text.startsWith('(') && text.endsWith(')')) text = text.slice(1, -1).trim()
  // PostgreSQL writes `a IN ('x', 'y')` as `a = ANY (ARRAY['x', 'y'])`.
  return text.replace(/(\w+) = ANY \(ARRAY\[([^\]]*)\]\)/g, '$1 IN ($2)')
}

/** A check as the column it names and the values it allows. */
function check(sql: string): string {
  const column = /[a-z_]+/.exec(sql.replace(/^CHECK/i, ''))![0]
  const strings = [...sql.matchAll(/'([^']*)'/g)].map((m) => m[1])
  const numbers = sql.replace(/'[^']*'/g, '').match(/\b\d+\b/g) ?? []
  return `${column}: ${sorted([...strings, ...numbers]).join(', ')}`
}

function sqliteSchema(db: ReturnType<typeof sqliteOf>): Schema {
  const objects = db.prepare<[], { type: string; name: string; tbl_name: string; sql: string }>("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL").all()
  const tables: Record<string, Table> = {}
  for (const { name, sql } of objects.filter((o) => o.type === 'table' && !INTERNAL_TABLES.has(o.name))) {
    const info = db.prepare<[], { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(`PRAGMA table_info(${name})`).all()
    const nocase = new Set([...sql.matchAll(/(\w+) TEXT[^,]*COLLATE NOCASE/gi)].map((m) => m[1]))
    const columns: Record<string, Column> = {}
    const ownKey = info.filter((c) => c.pk > 0).length === 1 ? info.find((c) => c.pk === 1 && c.name === 'pk' && c.type === 'INTEGER') : undefined
    for (const c of info) {
      const type = c === ownKey ? 'integer, generated' : BOOLEAN_COLUMNS.has(`${name}.${c.name}`) ? 'boolean' : c.type === 'INTEGER' ? 'integer' : c.type === 'BLOB' ? 'binary' : nocase.has(c.name) ? 'text, case-insensitive' : 'text'
      columns[c.name] = { type, notNull: c.notnull === 1 || c.pk > 0, default: c.dflt_value }
    }
    const indexes = db.prepare<[], { name: string; unique: number; origin: string; partial: number }>(`PRAGMA index_list(${name})`).all()
    const columnsOf = (index: string) => db.prepare<[], { name: string }>(`PRAGMA index_info(${index})`).all().map((c) => c.name).join(', ')
    const foreignKeys = db.prepare<[], { id: number; table: string; from: string; to: string; on_delete: string }>(`PRAGMA foreign_key_list(${name})`).all()
    tables[name] = {
      columns,
      primaryKey: info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
      uniques: sorted(indexes.filter((i) => i.origin === 'u').map((i) => columnsOf(i.name))),
      foreignKeys: sorted(foreignKeys.map((fk) => `FOREIGN KEY (${fk.from}) REFERENCES ${fk.table}(${fk.to})${fk.on_delete === 'NO ACTION' ? '' : ` ON DELETE ${fk.on_delete}`}`)),
      checks: sorted([...sql.matchAll(/CHECK \(([^()]*(?:\([^()]*\))?[^()]*)\)/g)].map((m) => check(m[1]))),
    }
  }
  const indexes: Record<string, string> = {}
  for (const { name, tbl_name, sql } of objects.filter((o) => o.type === 'index')) {
    const [, unique, columns, where] = /^CREATE (UNIQUE )?INDEX \w+ ON \w+ \(([^)]*)\)(?: WHERE (.*))?$/.exec(sql)!
    indexes[name] = `${unique ? 'unique ' : ''}${tbl_name} (${list(columns)})${where ? ` WHERE ${normalise(where)}` : ''}`
  }
  const catalogTriggers = objects
    .filter((o) => o.type === 'trigger')
    .map(({ sql }) => {
      expect(sql).toMatch(/BEGIN UPDATE catalog_version SET version = version \+ 1 WHERE id = 1; END$/)
      const [, event, columns, table, when] = /AFTER (INSERT|UPDATE|DELETE)(?: OF ([\w, ]+?))? ON (\w+)(?:\s+WHEN (.+?))?\s+BEGIN/.exec(sql)!
      return `${table} ${event}${columns ? ` OF ${list(columns)}` : ''}${when ? ` WHEN ${normalise(when)}` : ''}`
    })
  return { tables, indexes, catalogTriggers: sorted(catalogTriggers) }
}

async function postgresSchema(client: pg.Client): Promise<Schema> {
  const rows = async <T extends object>(sql: string) => (await client.query<T>(sql)).rows
  const columns = await rows<{ table_name: string; column_name: string; udt_name: string; is_nullable: string; is_identity: string; column_default: string | null }>(
    "SELECT table_name, column_name, udt_name, is_nullable, is_identity, column_default FROM information_schema.columns WHERE table_schema = 'public' ORDER BY ordinal_position",
  )
  const constraints = await rows<{ table_name: string; contype: string; columns: string[]; def: string }>(`
    SELECT c.conrelid::regclass::text AS table_name, c.contype, pg_get_constraintdef(c.oid) AS def,
      ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY AS k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i)::text[] AS columns
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'`)
  const tables: Record<string, Table> = {}
  const TYPES: Record<string, Column['type']> = { int8: 'integer', int4: 'integer', bool: 'boolean', text: 'text', citext: 'text, case-insensitive', bytea: 'binary' }
  for (const c of columns.filter((c) => !INTERNAL_TABLES.has(c.table_name))) {
    const table = (tables[c.table_name] ??= { columns: {}, primaryKey: [], uniques: [], foreignKeys: [], checks: [] })
    const type = c.is_identity === 'YES' ? 'integer, generated' : TYPES[c.udt_name]
    expect(type, `${c.table_name}.${c.column_name} is ${c.udt_name}`).toBeDefined()
    const raw = c.column_default === null ? null : normalise(c.column_default)
    table.columns[c.column_name] = { type, notNull: c.is_nullable === 'NO', default: raw === 'false' ? '0' : raw === 'true' ? '1' : raw }
  }
  for (const c of constraints.filter((c) => tables[c.table_name])) {
    const table = tables[c.table_name]
    if (c.contype === 'p') table.primaryKey = c.columns
    else if (c.contype === 'u') table.uniques.push(c.columns.join(', '))
    else if (c.contype === 'f') table.foreignKeys.push(c.def)
    else if (c.contype === 'c') table.checks.push(check(c.def))
  }
  for (const table of Object.values(tables)) for (const key of ['uniques', 'foreignKeys', 'checks'] as const) table[key] = sorted(table[key])
  const constraintNames = new Set((await rows<{ conname: string }>("SELECT conname FROM pg_constraint WHERE contype IN ('p', 'u')")).map((r) => r.conname))
  const indexes: Record<string, string> = {}
  for (const { indexname, indexdef } of await rows<{ indexname: string; indexdef: string }>("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'")) {
    if (constraintNames.has(indexname)) continue
    const [, unique, table, columns, where] = /^CREATE (UNIQUE )?INDEX \w+ ON public\.(\w+) USING btree \(([^)]*)\)(?: WHERE (.*))?$/.exec(indexdef)!
    if (INTERNAL_TABLES.has(table)) continue
    indexes[indexname] = `${unique ? 'unique ' : ''}${table} (${list(columns)})${where ? ` WHERE ${normalise(where)}` : ''}`
  }
  const triggers = await rows<{ def: string }>('SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE NOT tgisinternal')
  const catalogTriggers = triggers.map(({ def }) => {
    const [, event, columns, table, when, fn] = /AFTER (INSERT|UPDATE|DELETE)(?: OF ([\w, ]+?))? ON public\.(\w+) FOR EACH ROW(?: WHEN \((.+)\))? EXECUTE FUNCTION (\w+)\(\)$/.exec(def)!
    expect(fn).toBe('bump_catalog_version')
    return `${table} ${event}${columns ? ` OF ${list(columns)}` : ''}${when ? ` WHEN ${normalise(when)}` : ''}`
  })
  return { tables, indexes, catalogTriggers: sorted(catalogTriggers) }
}

let sqlite: Schema
let postgres: Schema
let url: string

beforeAll(async () => {
  const store = await openStore(await tmpDir('lectern-schema-', defer))
  sqlite = sqliteSchema(sqliteOf(store))
  await store.close()
  url = (await startPostgres(defer)).url
  const db: Knex = knex({ client: 'pg', connection: url })
  try {
    await db.migrate.latest({ migrationSource: postgresMigrationSource })
  } finally {
    await db.destroy()
  }
  const client = new pg.Client(url)
  await client.connect()
  try {
    postgres = await postgresSchema(client)
  } finally {
    await client.end()
  }
}, 60_000)

describe('the PostgreSQL schema', () => {
  it('has the tables of the SQLite schema, no more, no fewer', () => {
    expect(sorted(Object.keys(postgres.tables))).toEqual(sorted(Object.keys(sqlite.tables)))
  })

  it('has, table by table, the same columns, keys and checks', () => {
    expect(postgres.tables).toEqual(sqlite.tables)
  })

  it('has the same named indexes, with their conditions', () => {
    expect(postgres.indexes).toEqual(sqlite.indexes)
  })

  it('moves the catalogue version on the same tables, events, columns and conditions', () => {
    expect(sqlite.catalogTriggers.length).toBeGreaterThan(20)
    expect(postgres.catalogTriggers).toEqual(sqlite.catalogTriggers)
  })
})

describe('the PostgreSQL schema at work', () => {
  it('moves the catalogue version and notifies the change; emails and team names are case-insensitive', async () => {
    const listener = new pg.Client(url)
    const client = new pg.Client(url)
    await Promise.all([listener.connect(), client.connect()])
    try {
      await listener.query('LISTEN lectern_catalog')
      const notified = new Promise<string | undefined>((resolve) => listener.once('notification', (n) => resolve(n.payload)))
      const before = (await client.query<{ version: string }>('SELECT version FROM catalog_version WHERE id = 1')).rows[0].version
      await client.query("INSERT INTO libraries (id, title, source_type, source_url, created_at, updated_at) VALUES ('/acme/widgets', 'Widgets', 'github', 'https://github.com/acme/widgets', 'now', 'now')")
      const after = (await client.query<{ version: string }>('SELECT version FROM catalog_version WHERE id = 1')).rows[0].version
      expect(Number(after)).toBe(Number(before) + 1)
      expect(await notified).toBe(after)
      // A setting other than the access default moves nothing.
      await client.query("INSERT INTO settings (key, value, updated_at) VALUES ('rateLimit.keyed', '60', 'now')")
      expect((await client.query<{ version: string }>('SELECT version FROM catalog_version WHERE id = 1')).rows[0].version).toBe(after)
      await client.query("INSERT INTO users (email, password_hash, role, created_at) VALUES ('Ada@Example.com', 'x', 'admin', 'now')")
      await expect(client.query("INSERT INTO users (email, password_hash, role, created_at) VALUES ('ada@example.COM', 'x', 'member', 'now')")).rejects.toMatchObject({ code: '23505' })
      expect((await client.query("SELECT pk FROM users WHERE email = 'ADA@EXAMPLE.COM'")).rowCount).toBe(1)
      await expect(client.query("INSERT INTO connections (kind, name, base_url, token_sealed, created_at) VALUES ('svn', 'x', 'https://x', 'y', 'now')")).rejects.toMatchObject({ code: '23514' })
    } finally {
      await Promise.all([listener.end(), client.end()])
    }
  })
})
