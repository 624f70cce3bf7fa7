/**
 * The serving processes of an install and when each was last seen (migration 0025): what tells a
 * replica on PostgreSQL that another one runs the install's jobs (src/jobs/runner-claim.ts).
 */
import { nowIso } from './db.js'
import type { Sql } from './sql.js'

export interface Replica {
  id: string
  host: string
  pid: number
  appVersion: string
  startedAt: string
  seenAt: string
}

interface ReplicaRow {
  id: string
  host: string
  pid: number
  app_version: string
  started_at: string
  seen_at: string
}

export interface ReplicasRepository {
  /**
   * Records `replica` as the one that runs the install's jobs, in one write transaction, unless
   * another was seen after `staleBefore`: that one is returned instead, and nothing is written.
   * Rows not seen since `staleBefore` (processes that died) are removed on the way.
   */
  claim(replica: Pick<Replica, 'id' | 'host' | 'pid' | 'appVersion'>, staleBefore: string): Promise<Replica | undefined>
  /** This replica was seen now; false when its row is gone (another replica found it stale and removed it). */
  beat(id: string): Promise<boolean>
  remove(id: string): Promise<void>
  list(): Promise<Replica[]>
}

const toReplica = (row: ReplicaRow): Replica => ({ id: row.id, host: row.host, pid: row.pid, appVersion: row.app_version, startedAt: row.started_at, seenAt: row.seen_at })

export function createReplicasRepository(sql: Sql): ReplicasRepository {
  return {
    claim: (replica, staleBefore) =>
      sql.transaction(async () => {
        await sql.run('DELETE FROM replicas WHERE seen_at < ?', [staleBefore])
        const other = await sql.get<ReplicaRow>('SELECT * FROM replicas WHERE id <> ? ORDER BY started_at LIMIT 1', [replica.id])
        if (other) return toReplica(other)
        const now = nowIso()
        await sql.run(
          'INSERT INTO replicas (id, host, pid, app_version, started_at, seen_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at',
          [replica.id, replica.host, replica.pid, replica.appVersion, now, now],
        )
        return undefined
      }),
    beat: async (id) => (await sql.run('UPDATE replicas SET seen_at = ? WHERE id = ?', [nowIso(), id])).changes === 1,
    async remove(id) {
      await sql.run('DELETE FROM replicas WHERE id = ?', [id])
    },
    list: async () => (await sql.all<ReplicaRow>('SELECT * FROM replicas ORDER BY started_at')).map(toReplica),
  }
}
