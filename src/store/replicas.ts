/**
 * The serving processes of an install and when each was last seen (migration 0025), on
 * PostgreSQL (src/install/replica.ts).
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
  /** Records `replica` (again, if its row is there), removing on the way the rows not seen since `staleBefore`: processes that died. */
  register(replica: Pick<Replica, 'id' | 'host' | 'pid' | 'appVersion'>, staleBefore: string): Promise<void>
  /** This replica was seen now; false when its row is gone (another replica found it stale and removed it). */
  beat(id: string): Promise<boolean>
  remove(id: string): Promise<void>
  /** The replicas seen since `staleBefore`, oldest first. */
  live(staleBefore: string): Promise<Replica[]>
}

const toReplica = (row: ReplicaRow): Replica => ({ id: row.id, host: row.host, pid: row.pid, appVersion: row.app_version, startedAt: row.started_at, seenAt: row.seen_at })

export function createReplicasRepository(sql: Sql): ReplicasRepository {
  return {
    register: (replica, staleBefore) =>
      sql.transaction(async () => {
        await sql.run('DELETE FROM replicas WHERE seen_at < ?', [staleBefore])
        const now = nowIso()
        await sql.run(
          'INSERT INTO replicas (id, host, pid, app_version, started_at, seen_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at',
          [replica.id, replica.host, replica.pid, replica.appVersion, now, now],
        )
      }),
    beat: async (id) => (await sql.run('UPDATE replicas SET seen_at = ? WHERE id = ?', [nowIso(), id])).changes === 1,
    async remove(id) {
      await sql.run('DELETE FROM replicas WHERE id = ?', [id])
    },
    live: async (staleBefore) => (await sql.all<ReplicaRow>('SELECT * FROM replicas WHERE seen_at >= ? ORDER BY started_at', [staleBefore])).map(toReplica),
  }
}
