/**
 * A real PostgreSQL (Debian's, installed by npm test: scripts/system-packages.sh) on 127.0.0.1: a
 * cluster of its own in a temporary directory, stopped when the suite ends. PostgreSQL refuses to
 * run as root, so under root (CI) the cluster belongs to the `postgres` user the package creates.
 */
import { postgresPrograms, startPostgresCluster, type PostgresCluster } from '../../scripts/postgres-cluster.js'
import { requireSystemCommand } from './system.js'
import { tmpDir, type Defer } from './tmp.js'

export type Postgres = PostgresCluster

export async function startPostgres(defer: Defer): Promise<Postgres> {
  const bin = postgresPrograms()
  if (!bin) requireSystemCommand('/usr/lib/postgresql/15/bin/initdb', 'postgresql')
  const cluster = await startPostgresCluster(bin!, await tmpDir('lectern-postgres-', defer))
  defer(() => cluster.stop())
  return cluster
}
