/**
 * The ordered list of migrations, handed to knex as its migration source so the same list runs
 * from compiled JS and from TypeScript in tests. Append only; never edit a released entry.
 */
import type { Knex } from 'knex'
import * as settings from './0001_settings.js'
import * as apiKeys from './0002_api_keys.js'
import * as libraries from './0003_libraries.js'
import * as snippets from './0004_snippets.js'
import * as jobs from './0005_jobs.js'
import * as usage from './0006_usage.js'
import * as connections from './0007_connections.js'
import * as users from './0008_users.js'
import * as licenses from './0009_licenses.js'
import * as snippetOrigins from './0010_snippet_origins.js'
import * as oneIngestJob from './0011_one_ingest_job.js'
import * as catalogVersion from './0012_catalog_version.js'
import * as jobLogs from './0013_job_logs.js'
import * as teamspaces from './0014_teamspaces.js'
import * as libraryMetrics from './0015_library_metrics.js'
import * as libraryAccess from './0016_library_access.js'
import * as accounts from './0017_accounts.js'
import * as teamConnections from './0018_team_connections.js'
import * as teamPksNeverReused from './0019_team_pks_never_reused.js'
import * as jobPksNeverReused from './0020_job_pks_never_reused.js'
import * as cachedRowsMoveCatalog from './0021_cached_rows_move_catalog.js'
import * as jobWarningsAndRunner from './0022_job_warnings_and_runner.js'
import * as extractionReports from './0023_extraction_reports.js'
import * as oneActiveJobPerVersion from './0024_one_active_job_per_version.js'
import * as replicas from './0025_replicas.js'
import * as jobLeases from './0026_job_leases.js'
import * as rateCounts from './0027_rate_counts.js'
import * as inputFiles from './0028_input_files.js'
import * as snippetVectors from './0029_snippet_vectors.js'
import * as auditEvents from './0030_audit_events.js'
import * as ssoUsers from './0031_sso_users.js'
import * as libraryGroupGrants from './0032_library_group_grants.js'
import * as namespaceRules from './0033_namespace_rules.js'
import * as gitopsLibraries from './0034_gitops_libraries.js'
import * as webhooks from './0035_webhooks.js'
import * as sshConnections from './0036_ssh_connections.js'

export const MIGRATIONS: ReadonlyArray<readonly [string, Knex.Migration]> = [
  ['0001_settings', settings],
  ['0002_api_keys', apiKeys],
  ['0003_libraries', libraries],
  ['0004_snippets', snippets],
  ['0005_jobs', jobs],
  ['0006_usage', usage],
  ['0007_connections', connections],
  ['0008_users', users],
  ['0009_licenses', licenses],
  ['0010_snippet_origins', snippetOrigins],
  ['0011_one_ingest_job', oneIngestJob],
  ['0012_catalog_version', catalogVersion],
  ['0013_job_logs', jobLogs],
  ['0014_teamspaces', teamspaces],
  ['0015_library_metrics', libraryMetrics],
  ['0016_library_access', libraryAccess],
  ['0017_accounts', accounts],
  ['0018_team_connections', teamConnections],
  ['0019_team_pks_never_reused', teamPksNeverReused],
  ['0020_job_pks_never_reused', jobPksNeverReused],
  ['0021_cached_rows_move_catalog', cachedRowsMoveCatalog],
  ['0022_job_warnings_and_runner', jobWarningsAndRunner],
  ['0023_extraction_reports', extractionReports],
  ['0024_one_active_job_per_version', oneActiveJobPerVersion],
  ['0025_replicas', replicas],
  ['0026_job_leases', jobLeases],
  ['0027_rate_counts', rateCounts],
  ['0028_input_files', inputFiles],
  ['0029_snippet_vectors', snippetVectors],
  ['0030_audit_events', auditEvents],
  ['0031_sso_users', ssoUsers],
  ['0032_library_group_grants', libraryGroupGrants],
  ['0033_namespace_rules', namespaceRules],
  ['0034_gitops_libraries', gitopsLibraries],
  ['0035_webhooks', webhooks],
  ['0036_ssh_connections', sshConnections],
]

export const migrationSource = sourceOf(MIGRATIONS)

/** A list of named migrations as knex's migration source. */
export function sourceOf(list: ReadonlyArray<readonly [string, Knex.Migration]>): Knex.MigrationSource<readonly [string, Knex.Migration]> {
  return {
    getMigrations: async () => [...list],
    getMigrationName: ([name]) => name,
    getMigration: async ([, migration]) => migration,
  }
}
