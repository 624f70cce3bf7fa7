/**
 * The two databases a store runs on, for suites that hold both to one contract: SQLite in a data
 * directory, and a real PostgreSQL (test/helpers/postgres.ts), one server per test file and one
 * database per store, made from a template migrated once so that a test pays no migrations.
 */
import path from 'node:path'
import pg from 'pg'
import { inject } from 'vitest'
import { migratePostgres } from '../../src/store/postgres.js'
import { openStore, type Store } from '../../src/store/index.js'
import { startPostgres } from './postgres.js'
import { TEST_SECRET_KEY } from './secret-key.js'
import { tmpDir, type Defer } from './tmp.js'

export { TEST_SECRET_KEY }

export type StoreKind = 'sqlite' | 'postgres'

export const TEMPLATE_DATABASE = 'lectern_template'

/** Whether this run holds the API suites to PostgreSQL (vitest.postgres.config.ts). */
export const onPostgres = (): boolean => process.env.LECTERN_TEST_STORE === 'postgres'

let server: Promise<string> | undefined
let databases = 0

/**
 * The PostgreSQL of this test file: the run's (vitest.postgres.config.ts), else one started by the
 * first test that asks, with its template database migrated.
 */
function postgresServer(defer: Defer): Promise<string> {
  server ??= (async () => {
    const provided = inject('postgresUrl')
    if (provided) return provided
    const { url } = await startPostgres(defer)
    // Stopped with the file that started it: the next file of this worker (without isolation) starts its own.
    defer(() => {
      server = undefined
    })
    await createDatabase(url, TEMPLATE_DATABASE)
    await migratePostgres(withDatabase(url, TEMPLATE_DATABASE))
    return url
  })()
  return server
}

export const withDatabase = (url: string, name: string): string => url.replace(/\/[^/]*$/, `/${name}`)

export async function createDatabase(url: string, name: string, template?: string): Promise<void> {
  const admin = new pg.Client(url)
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`)
  } finally {
    await admin.end()
  }
}

/** The database each data directory's app was given in the PostgreSQL run, for CLI commands run on that directory. */
const databaseOfDataDir = new Map<string, string>()

export function useDatabaseFor(dataDir: string, url: string): void {
  databaseOfDataDir.set(path.resolve(dataDir), url)
}

/**
 * In the PostgreSQL run, the database of the install in `dataDir` (made on first use, dropped with
 * `defer`'s scope): every app and command on one data directory shares it, as the replicas and
 * CLI of one install share DATABASE_URL. Undefined in the SQLite run.
 */
export async function installDatabase(dataDir: string, defer: Defer): Promise<{ url: string } | undefined> {
  if (!onPostgres()) return undefined
  let url = databaseOf(dataDir)
  if (url === undefined) useDatabaseFor(dataDir, (url = await freshDatabase(defer, defer)))
  return { url }
}

/** The database of an install's data directory in the PostgreSQL run, if it was given one. */
export function databaseOf(dataDir: string | undefined): string | undefined {
  return dataDir === undefined ? undefined : databaseOfDataDir.get(path.resolve(dataDir))
}

/** DATABASE_URL and LECTERN_SECRET_KEY for a command run on `dataDir`: its install's database, if it was given one. */
export function databaseEnvFor(dataDir: string | undefined): Record<string, string> {
  const url = databaseOf(dataDir)
  return url === undefined ? {} : { DATABASE_URL: url, LECTERN_SECRET_KEY: TEST_SECRET_KEY }
}

/**
 * A fresh, migrated PostgreSQL database of its own: its URL. It is dropped when `defer`'s scope
 * ends (after what `defer` registered later, such as closing its store); a server this file started
 * goes when `serverDefer`'s does.
 */
export async function freshDatabase(defer: Defer, serverDefer: Defer): Promise<string> {
  const url = await postgresServer(serverDefer)
  const name = `lectern_${process.pid}_${++databases}`
  await createDatabase(url, name, TEMPLATE_DATABASE)
  defer(async () => {
    const admin = new pg.Client(url)
    await admin.connect()
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    } finally {
      await admin.end()
    }
  })
  return withDatabase(url, name)
}

/**
 * A store on a fresh database of the kind asked, closed (and its directory removed) by `defer`;
 * `serverDefer` ends the file's PostgreSQL (a suite's teardown, since the server outlives a test).
 */
export async function freshStore(kind: StoreKind, defer: Defer, serverDefer: Defer): Promise<Store> {
  const dir = await tmpDir('lectern-store-', defer)
  const store = kind === 'sqlite' ? await openStore(dir) : await openStore(dir, { databaseUrl: await freshDatabase(defer, serverDefer), env: { LECTERN_SECRET_KEY: TEST_SECRET_KEY } })
  defer(() => store.close())
  return store
}

/** Another store on the same database as `store`: what a second process (or replica) opens. */
export async function sameDatabase(store: Store, defer: Defer): Promise<Store> {
  const { kind, where } = store.database
  // Test URLs hold no password, so the URL the store shows is the one it opened.
  const other = kind === 'sqlite' ? await openStore(store.paths.root) : await openStore(await tmpDir('lectern-store-', defer), { databaseUrl: where, env: { LECTERN_SECRET_KEY: TEST_SECRET_KEY } })
  defer(() => other.close())
  return other
}

/** The store of the install in `dataDir`, as a CLI command opens it: its database in the PostgreSQL run. */
export function openInstall(dataDir: string): Promise<Store> {
  const url = databaseOf(dataDir)
  return url === undefined ? openStore(dataDir) : openStore(dataDir, { databaseUrl: url, env: { LECTERN_SECRET_KEY: TEST_SECRET_KEY } })
}
