/**
 * The store: the database opened, migrated and wrapped in one repository per table group. Servers
 * and CLI commands open it the same way: SQLite in the data directory (WAL mode lets them share
 * it), or PostgreSQL (DATABASE_URL), which every replica of an install shares.
 */
import fs from 'node:fs'
import path from 'node:path'
import { finishInterruptedRestore } from '../backup/restore.js'
import { makeDirectory } from '../install/make-dir.js'
import { dataPaths, type DataPaths } from '../install/paths.js'
import { withoutPassword } from '../config.js'
import { LecternError } from '../errors.js'
import { CANARY_SETTING, ensureSecretsCanary, opensCanary } from '../secrets/canary.js'
import { createSecretBox, type SecretBox } from '../secrets/cipher.js'
import { loadOrCreateSecretKey, secretKeyFromEnv } from '../secrets/key.js'
import type { SnapshotFacts } from './backup-facts.js'
import type { CatalogWatch } from './catalog-watch.js'
import { createAuditRepository, type AuditRepository } from './audit.js'
import { createAccountTokensRepository, type AccountTokensRepository } from './account-tokens.js'
import { createConnectionsRepository, type ConnectionsRepository } from './connections.js'
import { createWebhookDeliveriesRepository, type WebhookDeliveriesRepository } from './webhook-deliveries.js'
import { readSnapshotFacts, snapshotDatabase } from './database-file.js'
import { appliedMigrations, migrateDatabase, openConnection, type Db } from './db.js'
import { createExtractionReportsRepository, type ExtractionReportsRepository } from './extraction-reports.js'
import { createInvitationsRepository, type InvitationsRepository } from './invitations.js'
import { createJobLogsRepository, type JobLogsRepository } from './job-logs.js'
import { createJobsRepository, type JobsRepository } from './jobs.js'
import { createKeysRepository, type KeysRepository } from './keys.js'
import { createLicensesRepository, type LicensesRepository } from './licenses.js'
import { createLibrariesRepository, type LibrariesRepository } from './libraries.js'
import { createGitOpsRepository, type GitOpsRepository } from './gitops.js'
import { createLibraryAccessRepository, type LibraryAccessRepository } from './library-access.js'
import { createPoliciesRepository, type PoliciesRepository } from './policies.js'
import { createSqliteSql } from './sqlite-sql.js'
import { acquireLock, type HeldLock } from './lock.js'
import { createInputFilesRepository, type InputFilesRepository } from './input-files.js'
import { createRateCountsRepository, type RateCountsRepository } from './rate-counts.js'
import { createReplicasRepository, type ReplicasRepository } from './replicas.js'
import { createSettingsRepository, type SettingsRepository } from './settings.js'
import type { Sql } from './sql.js'
import { createSnippetsRepository, type SnippetsRepository } from './snippets.js'
import { createTeamsRepository, type TeamsRepository } from './teams.js'
import { createUsageRepository, type UsageRepository } from './usage.js'
import { createUsersRepository, type UsersRepository } from './users.js'

export interface Store {
  paths: DataPaths
  secrets: SecretBox
  settings: SettingsRepository
  keys: KeysRepository
  libraries: LibrariesRepository
  libraryAccess: LibraryAccessRepository
  gitops: GitOpsRepository
  snippets: SnippetsRepository
  jobs: JobsRepository
  extractionReports: ExtractionReportsRepository
  jobLogs: JobLogsRepository
  users: UsersRepository
  teams: TeamsRepository
  policies: PoliciesRepository
  accountTokens: AccountTokensRepository
  invitations: InvitationsRepository
  connections: ConnectionsRepository
  licenses: LicensesRepository
  usage: UsageRepository
  replicas: ReplicasRepository
  rateCounts: RateCountsRepository
  /** Files jobs read, on PostgreSQL (src/sources/input-files.ts). */
  inputFiles: InputFilesRepository
  audit: AuditRepository
  webhookDeliveries: WebhookDeliveriesRepository
  /**
   * Changes whenever any connection (this process or another) changes the catalogue: a
   * library, a version, a snippet set or a redirect (migration 0012). Cheap validation for what
   * is cached from them; writes of snippets, jobs or usage leave it as it is.
   */
  catalogVersion(): number
  /**
   * Runs `fn` in one write transaction and returns its result: every store call `fn` makes, and
   * whatever it awaits, is part of it (src/store/sql.ts). It waits its turn for the write lock
   * instead of failing when another process wrote since it read. A call inside another
   * transaction joins it as a savepoint.
   */
  transaction<T>(fn: () => Promise<T>): Promise<T>
  /** Runs `fn` in one read transaction: its reads see one moment, and it holds no writer up. */
  readTransaction<T>(fn: () => Promise<T>): Promise<T>
  /** The migrations applied to the database, oldest first. */
  migrations(): Promise<string[]>
  /** Which database holds the store, and where: a file, or a PostgreSQL URL without its password. */
  database: { kind: 'sqlite' | 'postgres'; where: string }
  /** False once closed: a server that is stopping is not ready. */
  isOpen(): boolean
  /**
   * Whether the database answers as far as this process knows: always on SQLite; on PostgreSQL
   * while the connection that listens for catalogue changes is up, which it tries again every
   * second when it is not (src/store/catalog-watch.ts).
   */
  isReachable(): boolean
  /**
   * Once-only work: runs `fn` unless another process runs the same task right now, and says
   * whether it ran. On SQLite a lock file of the task's (store/lock.ts, under `locks/`) decides
   * between the processes sharing the data directory (`serve --workers`, a CLI command beside the
   * server); on PostgreSQL an advisory lock (postgres-sql.ts). Either dies with its process, so
   * another takes the task over at its next turn.
   */
  exclusively<T>(task: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>
  /**
   * Writes a consistent copy of the whole database to `file` while the store goes on serving, and
   * returns what the copy holds (a backup's manifest lists it): on SQLite a `VACUUM INTO` copy,
   * on PostgreSQL a `pg_dump` custom-format dump (postgres-dump.ts).
   */
  snapshot(file: string): Promise<SnapshotFacts>
  close(): Promise<void>
}

/** Each open store's connection (SQLite) and SQL door (both), for sqliteOf and sqlOf. */
const connections = new WeakMap<Store, Db>()
const doors = new WeakMap<Store, Sql>()

/**
 * The SQLite connection under a store: for tests that check what is stored as SQLite stores it
 * (a table's rows, the schema, foreign keys). The program reaches the database only through the
 * store's repositories and transactions (test/unit/store-boundary.test.ts).
 */
export function sqliteOf(store: Store): Db {
  const db = connections.get(store)
  if (!db) throw new Error('not a store that openStore opened on SQLite')
  return db
}

/** The SQL door under a store, whichever the database: for tests that must break or read rows on both. */
async function runExclusively<T>(paths: DataPaths, task: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
  await fs.promises.mkdir(paths.taskLocks, { recursive: true, mode: 0o700 })
  const held = new LecternError('internal_error', `${task} runs in another process.`)
  let lock: HeldLock
  try {
    lock = acquireLock(path.join(paths.taskLocks, `${task}.lock`), () => held, { startedAt: new Date().toISOString() })
  } catch (err) {
    if (err === held) return { ran: false }
    throw err
  }
  try {
    return { ran: true, value: await fn() }
  } finally {
    lock.release()
  }
}

export function sqlOf(store: Store): Sql {
  const sql = doors.get(store)
  if (!sql) throw new Error('not a store that openStore opened')
  return sql
}

export interface StoreOptions {
  /** DATABASE_URL: the store in this PostgreSQL instead of SQLite in the data directory. */
  databaseUrl?: string
  /** Where a PostgreSQL store reads LECTERN_SECRET_KEY. */
  env?: NodeJS.ProcessEnv
}

/**
 * Opens the store: SQLite in the data directory, or the PostgreSQL `databaseUrl` names. Either way
 * the data directory holds what is local to this process (vector indexes, uploads) and is created
 * when missing.
 */
export async function openStore(dataDir: string, options: StoreOptions = {}): Promise<Store> {
  const paths = dataDirectory(dataDir)
  return options.databaseUrl ? openPostgresStore(paths, options.databaseUrl, options.env ?? process.env) : openSqliteStore(paths)
}

function dataDirectory(dataDir: string): DataPaths {
  const paths = dataPaths(dataDir)
  makeDirectory(paths.root)
  return paths
}

async function openSqliteStore(paths: DataPaths): Promise<Store> {
  // Before anything is created: a restore killed mid-way must finish, not meet a fresh empty db.
  await finishInterruptedRestore(paths)
  fs.mkdirSync(paths.vectors, { recursive: true })
  const secretKey = loadOrCreateSecretKey(paths.secretKey)
  await migrateDatabase(paths.database)
  const db = openConnection(paths.database)
  const sql = createSqliteSql(db)
  const catalogVersionStmt = db.prepare('SELECT version FROM catalog_version WHERE id = 1').pluck()
  // A transaction's uncommitted version is not the catalogue's, which others cache by: the last
  // version read outside every transaction stands for them until it ends.
  let catalogVersion = catalogVersionStmt.get() as number
  const readCatalogVersion = (): number => {
    const reads = sql.readsNow()
    if (reads === 'own') return catalogVersionStmt.get() as number
    if (reads === 'committed') catalogVersion = catalogVersionStmt.get() as number
    return catalogVersion
  }
  const secrets = createSecretBox(secretKey)
  const settings = createSettingsRepository(sql)
  await ensureSecretsCanary(settings, secrets)
  const store: Store = {
    ...repositories(sql, secrets, settings),
    paths,
    database: { kind: 'sqlite', where: paths.database },
    catalogVersion: readCatalogVersion,
    migrations: async () => appliedMigrations(db),
    isOpen: () => db.open,
    isReachable: () => true,
    exclusively: (task, fn) => runExclusively(paths, task, fn),
    snapshot: async (file) => {
      await snapshotDatabase(paths.database, file)
      return await readSnapshotFacts(file)
    },
    close: async () => {
      if (db.open) db.close()
    },
  }
  connections.set(store, db)
  doors.set(store, sql)
  return store
}

async function openPostgresStore(paths: DataPaths, url: string, env: NodeJS.ProcessEnv): Promise<Store> {
  const secretKey = secretKeyFromEnv(env)
  fs.mkdirSync(paths.vectors, { recursive: true })
  const { appliedPostgresMigrations, migratePostgres } = await import('./postgres.js')
  const { connectPostgres } = await import('./postgres-sql.js')
  const { watchCatalog } = await import('./catalog-watch.js')
  await migratePostgres(url)
  let watch: CatalogWatch | undefined
  const sql = connectPostgres(url, { afterWrite: () => watch?.refresh() ?? Promise.resolve() })
  let open = true
  try {
    watch = await watchCatalog(url, sql)
    const secrets = createSecretBox(secretKey)
    const settings = createSettingsRepository(sql)
    // One write transaction (the write lock): replicas starting together on a new database cannot
    // each seal a canary with their own key and each find their own.
    await sql.transaction(async () => {
      await ensureSecretsCanary(settings, secrets)
      await refuseAnotherKey(settings, secrets)
    })
    const catalog = watch
    const store: Store = {
      ...repositories(sql, secrets, settings),
      paths,
      database: { kind: 'postgres', where: withoutPassword(url) },
      // Inside a write transaction, its own number: what it caches from its uncommitted rows is
      // never found by another request, whose versions are the committed ones.
      catalogVersion: () => {
        const own = sql.ownWriteTransaction()
        return own === undefined ? catalog.version() : Number.MIN_SAFE_INTEGER + own
      },
      migrations: () => appliedPostgresMigrations((text) => sql.all<{ name: string }>(text).then((rows) => ({ rows }))),
      isOpen: () => open,
      isReachable: () => catalog.listening(),
      exclusively: (task, fn) => sql.exclusively(task, fn),
      snapshot: async (file) => {
        const { dumpPostgres } = await import('./postgres-dump.js')
        return await dumpPostgres(sql, url, file)
      },
      close: async () => {
        if (!open) return
        open = false
        await catalog.close()
        await sql.end()
      },
    }
    doors.set(store, sql)
    return store
  } catch (err) {
    await watch?.close()
    await sql.end()
    throw err
  }
}

/** Every replica of a PostgreSQL install must hold the key its secrets were sealed with. */
async function refuseAnotherKey(settings: SettingsRepository, secrets: SecretBox): Promise<void> {
  const sealed = await settings.get<string>(CANARY_SETTING)
  if (sealed !== undefined && !opensCanary(sealed, secrets)) {
    throw new LecternError(
      'secret_key_mismatch',
      "LECTERN_SECRET_KEY is not the key this database's secrets were sealed with: give this replica the key every other replica has. With another key, no stored credential could be opened, so this replica does not start.",
    )
  }
}

function repositories(sql: Sql, secrets: SecretBox, settings: SettingsRepository) {
  return {
    secrets,
    settings,
    keys: createKeysRepository(sql),
    libraries: createLibrariesRepository(sql),
    libraryAccess: createLibraryAccessRepository(sql),
    gitops: createGitOpsRepository(sql),
    snippets: createSnippetsRepository(sql),
    jobs: createJobsRepository(sql),
    extractionReports: createExtractionReportsRepository(sql),
    jobLogs: createJobLogsRepository(sql),
    users: createUsersRepository(sql),
    teams: createTeamsRepository(sql),
    policies: createPoliciesRepository(sql),
    accountTokens: createAccountTokensRepository(sql),
    invitations: createInvitationsRepository(sql),
    connections: createConnectionsRepository(sql, secrets),
    licenses: createLicensesRepository(sql),
    usage: createUsageRepository(sql),
    replicas: createReplicasRepository(sql),
    rateCounts: createRateCountsRepository(sql),
    inputFiles: createInputFilesRepository(sql),
    audit: createAuditRepository(sql),
    webhookDeliveries: createWebhookDeliveriesRepository(sql),
    transaction: <T>(fn: () => Promise<T>) => sql.transaction(fn, 'write'),
    readTransaction: <T>(fn: () => Promise<T>) => sql.transaction(fn, 'read'),
  }
}
