/**
 * Which process runs an install's jobs. On SQLite the data directory's lock says so (src/store/lock.ts).
 * Replicas on PostgreSQL share no directory, so the one that runs the jobs holds a row in
 * `replicas` instead and beats every REPLICA_BEAT_MS; a row not seen for REPLICA_STALE_MS is a
 * process that died (killed, its host gone), and its claim lapses.
 *
 * Until jobs carry an owner and a lease (issue 31, item 5), one process at a time may run them: a
 * second would take the first one's running jobs for a dead process's and run them again. So a
 * second `lectern serve` on the same database is refused, and a CLI command that would run the
 * queue itself leaves it to the server that holds the claim.
 */
import { randomUUID } from 'node:crypto'
import os from 'node:os'
import { LecternError } from '../errors.js'
import { APP_VERSION } from '../install/version.js'
import type { Store } from '../store/index.js'
import type { Replica } from '../store/replicas.js'

export const REPLICA_BEAT_MS = 5_000
export const REPLICA_STALE_MS = 20_000

export interface RunnerClaim {
  /** Gives the claim up (at a clean stop), so the next process need not wait for it to lapse. */
  release(): Promise<void>
}

export interface ClaimLog {
  warn(fields: object, message: string): void
}

/** The claim of this process, or the replica that holds it. */
export async function claimRunner(store: Store, log: ClaimLog): Promise<RunnerClaim | Replica> {
  const id = randomUUID()
  const holder = await store.replicas.claim({ id, host: os.hostname(), pid: process.pid, appVersion: APP_VERSION }, new Date(Date.now() - REPLICA_STALE_MS).toISOString())
  if (holder) return holder
  let beating: Promise<unknown> = Promise.resolve()
  const timer = setInterval(() => {
    beating = store.replicas.beat(id).then(
      (kept) => {
        if (!kept) log.warn({ replica: id }, 'this server was not seen for a while and its claim on the jobs lapsed; restart it if another server has started since')
      },
      (err: unknown) => log.warn({ err }, 'could not record that this server is alive (the database is unreachable?); retrying'),
    )
  }, REPLICA_BEAT_MS)
  timer.unref()
  return {
    async release() {
      clearInterval(timer)
      await beating
      await store.replicas.remove(id).catch(() => {})
    },
  }
}

export const isClaim = (claimed: RunnerClaim | Replica): claimed is RunnerClaim => 'release' in claimed

/** The refusal of a second server on a PostgreSQL install, naming the one that holds it. */
export function installInUse(holder: Replica): LecternError {
  return new LecternError(
    'install_in_use',
    `Another Lectern server runs this install's jobs: process ${holder.pid} on ${holder.host} (Lectern ${holder.appVersion}, started ${holder.startedAt}, last seen ${holder.seenAt}). Several replicas on one database are not supported yet (docs/scaling.md): stop that server first; if it died, its claim lapses ${REPLICA_STALE_MS / 1000} s after it was last seen.`,
  )
}
