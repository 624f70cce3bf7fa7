/**
 * The servers that serve an install, each with a heartbeat: on PostgreSQL every `lectern serve`
 * records itself in `replicas` and beats every REPLICA_BEAT_MS; a row not seen for
 * REPLICA_STALE_MS is a process that died (killed, its host gone) and is removed by the next
 * replica that starts. What it tells: whether a server runs the install's jobs (a CLI that waits
 * for a job runs the queue itself only when none does, src/jobs/wait.ts), and which replicas are
 * up (`lectern status`). Jobs do not depend on it: each runner holds the job it runs by a lease of
 * its own (src/jobs/lease.ts), so a replica that dies costs its job a lease, not a heartbeat.
 * On SQLite the data directory's lock tells the same (src/store/lock.ts).
 */
import { randomUUID } from 'node:crypto'
import os from 'node:os'
import { APP_VERSION } from './version.js'
import type { Store } from '../store/index.js'
import type { Replica } from '../store/replicas.js'

export const REPLICA_BEAT_MS = 5_000
export const REPLICA_STALE_MS = 20_000

export interface ReplicaRegistration {
  /** Removes this replica's row (at a clean stop), so it is not counted until it lapses. */
  release(): Promise<void>
}

export interface ReplicaLog {
  warn(fields: object, message: string): void
}

const staleBefore = () => new Date(Date.now() - REPLICA_STALE_MS).toISOString()

/** Records this process as a replica of the install, and keeps its row fresh until released. */
export async function registerReplica(store: Store, log: ReplicaLog): Promise<ReplicaRegistration> {
  const id = randomUUID()
  await store.replicas.register({ id, host: os.hostname(), pid: process.pid, appVersion: APP_VERSION }, staleBefore())
  let beating: Promise<unknown> = Promise.resolve()
  const timer = setInterval(() => {
    beating = store.replicas.beat(id).then(
      async (kept) => {
        if (kept) return
        // Not seen for longer than REPLICA_STALE_MS (a stalled process, a long database outage): another replica removed the row.
        log.warn({ replica: id }, 'this server was not seen for a while and was taken for gone; recording it again')
        await store.replicas.register({ id, host: os.hostname(), pid: process.pid, appVersion: APP_VERSION }, staleBefore())
      },
      (err: unknown) => log.warn({ err }, 'could not record that this server is alive (the database is unreachable?); retrying'),
    )
  }, REPLICA_BEAT_MS)
  timer.unref()
  return {
    async release() {
      clearInterval(timer)
      await beating.catch(() => {})
      await store.replicas.remove(id).catch(() => {})
    },
  }
}

/** The replicas seen within REPLICA_STALE_MS. */
export const liveReplicas = (store: Store): Promise<Replica[]> => store.replicas.live(staleBefore())
