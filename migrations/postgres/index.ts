/**
 * The ordered list of PostgreSQL migrations: the baseline (SQLite's 0001 to 0023 in one), then
 * every later migration, named as its SQLite twin: the same module where its SQL is the same in
 * both dialects. Append only; never edit a released entry.
 */
import type { Knex } from 'knex'
import { sourceOf } from '../index.js'
import * as oneActiveJobPerVersion from '../0024_one_active_job_per_version.js'
import * as replicas from '../0025_replicas.js'
import * as jobLeases from '../0026_job_leases.js'
import * as rateCounts from '../0027_rate_counts.js'
import * as inputFiles from '../0028_input_files.js'
import * as snippetVectors from '../0029_snippet_vectors.js'
import * as auditEvents from '../0030_audit_events.js'
import * as ssoUsers from '../0031_sso_users.js'
import * as libraryGroupGrants from '../0032_library_group_grants.js'
import * as namespaceRules from '../0033_namespace_rules.js'
import * as gitopsLibraries from '../0034_gitops_libraries.js'
import * as webhooks from '../0035_webhooks.js'
import * as sshConnections from '../0036_ssh_connections.js'
import * as baseline from './0023_baseline.js'

export const POSTGRES_MIGRATIONS: ReadonlyArray<readonly [string, Knex.Migration]> = [
  ['0023_baseline', baseline],
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

export const postgresMigrationSource = sourceOf(POSTGRES_MIGRATIONS)
