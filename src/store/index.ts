/**
 * The store: the data directory opened, migrated and wrapped in one repository per table group.
 * Servers and CLI commands open it the same way; SQLite in WAL mode lets them share it.
 */
import fs from 'node:fs'
import { finishInterruptedRestore } from '../backup/restore.js'
import { makeDirectory } from '../install/make-dir.js'
import { dataPaths, type DataPaths } from '../install/paths.js'
import { ensureSecretsCanary } from '../secrets/canary.js'
import { createSecretBox, type SecretBox } from '../secrets/cipher.js'
import { loadOrCreateSecretKey } from '../secrets/key.js'
import { createAccountTokensRepository, type AccountTokensRepository } from './account-tokens.js'
import { createConnectionsRepository, type ConnectionsRepository } from './connections.js'
import { appliedMigrations, migrateDatabase, openConnection, type Db } from './db.js'
import { createExtractionReportsRepository, type ExtractionReportsRepository } from './extraction-reports.js'
import { createInvitationsRepository, type InvitationsRepository } from './invitations.js'
import { createJobLogsRepository, type JobLogsRepository } from './job-logs.js'
import { createJobsRepository, type JobsRepository } from './jobs.js'
import { createKeysRepository, type KeysRepository } from './keys.js'
import { createLicensesRepository, type LicensesRepository } from './licenses.js'
import { createLibrariesRepository, type LibrariesRepository } from './libraries.js'
import { createLibraryAccessRepository, type LibraryAccessRepository } from './library-access.js'
import { createPoliciesRepository, type PoliciesRepository } from './policies.js'
import { createSqliteSql } from './sqlite-sql.js'
import { createSettingsRepository, type SettingsRepository } from './settings.js'
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
  migrations(): string[]
  /** False once closed: a server that is stopping is not ready. */
  isOpen(): boolean
  close(): void
}

/** Each open store's connection, for sqliteOf. */
const connections = new WeakMap<Store, Db>()

/**
 * The SQLite connection under a store: for tests that check what is stored as SQLite stores it
 * (a table's rows, the schema, foreign keys). The program reaches the database only through the
 * store's repositories and transactions (test/unit/store-boundary.test.ts).
 */
export function sqliteOf(store: Store): Db {
  const db = connections.get(store)
  if (!db) throw new Error('not a store that openStore opened')
  return db
}

export async function openStore(dataDir: string): Promise<Store> {
  const paths = dataPaths(dataDir)
  makeDirectory(paths.root)
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
    paths,
    secrets,
    settings,
    keys: createKeysRepository(sql),
    libraries: createLibrariesRepository(sql),
    libraryAccess: createLibraryAccessRepository(sql),
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
    catalogVersion: readCatalogVersion,
    transaction: (fn) => sql.transaction(fn, 'write'),
    readTransaction: (fn) => sql.transaction(fn, 'read'),
    migrations: () => appliedMigrations(db),
    isOpen: () => db.open,
    close: () => {
      if (db.open) db.close()
    },
  }
  connections.set(store, db)
  return store
}
