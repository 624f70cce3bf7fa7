/**
 * What `lectern status` reports: which data directory a command on this host sees and why, the
 * mode and versions, and whether a server holds that directory, where it listens and whether it
 * answers. The server is found by the data directory's lock (held only by a live process) and
 * the address `lectern serve` writes beside it; it is asked `GET /api/ready` with a short timeout.
 * On PostgreSQL the servers of the install on every host are listed too, from their heartbeats.
 */
import type { ResolvedConfig, Mode, SettingSource } from '../config.js'
import { dataDirOrigin } from './data-dir.js'
import type { Runtime } from '../runtime.js'
import type { Store } from '../store/index.js'
import type { Replica } from '../store/replicas.js'
import { liveReplicas } from './replica.js'
import { lockState, readLockHolder } from '../store/lock.js'
import { APP_VERSION } from './version.js'

/** How long `status` waits for a server's readiness answer. */
const READY_TIMEOUT_MS = 2_000

export interface ServerSeen {
  /** A live process holds the data directory (a server, or a command running jobs or a restore). */
  running: boolean
  pid?: number
  hostname?: string
  startedAt?: string
  /** Where the holder listens; absent for a holder that is not a server. */
  url?: string
  /** Its answer to GET /api/ready: true, false (503: starting, or restoring), or null when it did not answer. */
  ready?: boolean | null
}

export interface InstallStatus {
  dataDir: string
  /** Where the data directory came from, in words ("given by --data-dir", "the default (...)"). */
  dataDirOrigin: string
  configFile: string | null
  mode: Mode
  modeSource: SettingSource
  version: string
  /** Where the store is: the SQLite file, or the PostgreSQL URL (DATABASE_URL) without its password. */
  database: Store['database']
  /** The newest migration the database has: what a backup's manifest and an upgrade compare. */
  schema: string
  server: ServerSeen
  /** On PostgreSQL, the servers of the install seen within the last 20 s, on any host (replica.ts); null on SQLite. */
  replicas: Replica[] | null
  libraries: number
  jobs: { running: number; queued: number }
}

export async function installStatus(resolved: ResolvedConfig, runtime: Runtime): Promise<InstallStatus> {
  const { store } = runtime
  const active = await store.jobs.list({ states: ['running', 'queued'] })
  return {
    dataDir: store.paths.root,
    dataDirOrigin: dataDirOrigin(resolved),
    configFile: resolved.file ?? null,
    mode: resolved.config.mode,
    modeSource: resolved.sources.mode,
    version: APP_VERSION,
    database: store.database,
    schema: (await store.migrations()).at(-1) ?? 'none',
    server: await serverSeen(store.paths.lock),
    replicas: store.database.kind === 'postgres' ? await liveReplicas(store) : null,
    libraries: (await store.libraries.list()).length,
    jobs: { running: active.filter((j) => j.state === 'running').length, queued: active.filter((j) => j.state === 'queued').length },
  }
}

async function serverSeen(lockPath: string): Promise<ServerSeen> {
  if (lockState(lockPath) !== 'held') return { running: false }
  const holder = readLockHolder(lockPath)
  if (!holder) return { running: true }
  const url = typeof holder.server === 'string' ? holder.server : undefined
  const seen: ServerSeen = { running: true, pid: holder.pid, hostname: holder.hostname, startedAt: holder.startedAt }
  if (!url) return seen
  return { ...seen, url, ready: await readiness(url) }
}

/** A server listening on every interface is asked on loopback. */
function probeUrl(url: string): URL {
  const probe = new URL('/api/ready', url)
  if (probe.hostname === '0.0.0.0') probe.hostname = '127.0.0.1'
  if (probe.hostname === '[::]') probe.hostname = '[::1]'
  return probe
}

async function readiness(url: string): Promise<boolean | null> {
  try {
    const response = await fetch(probeUrl(url), { signal: AbortSignal.timeout(READY_TIMEOUT_MS) })
    await response.body?.cancel()
    return response.ok
  } catch {
    return null
  }
}
