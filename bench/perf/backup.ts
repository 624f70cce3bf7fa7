/**
 * Backup and restore throughput of a data dir, each next to `tar czf` / `tar xzf` of the same
 * files in the same run (the ratio is what to compare across machines), and the p99 of
 * /api/v2/context while the server itself runs backups back to back, next to the p99 without.
 * The data dir is only read, apart from one bench admin user and the backup status setting; all
 * archives and restored copies go to a scratch directory that is removed at the end.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { BackupRunner } from '../../src/backup/runner.js'
import { restoreArchive } from '../../src/backup/restore.js'
import { dataPaths } from '../../src/install/paths.js'
import { openStore } from '../../src/store/index.js'
import { questions } from './docs.js'
import { runLoad } from './load.js'
import { latency, markdownTable, row, seconds } from './report.js'
import { contextPath, startServer } from './servers.js'

const LOAD_SECONDS = 10
/** Requests before the idle window, so that it does not time the first load of each library. */
const WARMUP_SECONDS = 3
const CONNECTIONS = 8
const BENCH_ADMIN = 'bench-backup@lectern.invalid'

const quiet = { info() {}, warn() {}, error() {} }
const mbps = (bytes: number, ms: number) => `${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s`

function timed<T>(work: () => T): { value: T; ms: number } {
  const start = performance.now()
  const value = work()
  return { value, ms: performance.now() - start }
}

async function timedAsync<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now()
  const value = await work()
  return { value, ms: performance.now() - start }
}

/** Bytes a backup reads: the database (with its WAL), the vector files and the key. */
function dataBytes(dataDir: string): number {
  const paths = dataPaths(dataDir)
  const size = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0)
  const vectors = fs.existsSync(paths.vectors) ? fs.readdirSync(paths.vectors).reduce((sum, f) => sum + size(path.join(paths.vectors, f)), 0) : 0
  return size(paths.database) + size(`${paths.database}-wal`) + size(paths.secretKey) + vectors
}

export async function runBackupBench(dataDir: string): Promise<string> {
  const root = path.resolve(dataDir)
  const scratch = fs.mkdtempSync(path.join(path.dirname(root), '.lectern-backup-bench-'))
  try {
    const bytes = dataBytes(root)
    const store = await openStore(root)
    let archive: string
    let backupMs: number
    try {
      const run = await timedAsync(async () => (await new BackupRunner(store, quiet).start({ trigger: 'cli', target: path.join(scratch, 'out') })).done)
      archive = path.join(scratch, 'out', run.value.name!)
      backupMs = run.ms
    } finally {
      await store.close()
    }
    const tarFile = path.join(scratch, 'plain.tgz')
    const tarCreate = timed(() => execFileSync('tar', ['czf', tarFile, '-C', root, 'lectern.db', 'vectors', 'secret.key']))

    const restoreInto = path.join(scratch, 'restored')
    const restore = await timedAsync(() => restoreArchive(restoreInto, archive))
    const untarInto = path.join(scratch, 'untarred')
    fs.mkdirSync(untarInto)
    const tarExtract = timed(() => execFileSync('tar', ['xzf', tarFile, '-C', untarInto]))

    const load = await contextLatency(root, scratch)
    return markdownTable([
      row('data backed up', `${(bytes / 1e6).toFixed(1)} MB`),
      row('lectern backup', `${mbps(bytes, backupMs)} (${seconds(backupMs)})`),
      row('tar czf, same files', `${mbps(bytes, tarCreate.ms)} (${seconds(tarCreate.ms)})`),
      row('backup time / tar czf time', (backupMs / tarCreate.ms).toFixed(2)),
      row('lectern restore (validate + extract + verify + swap)', `${mbps(bytes, restore.ms)} (${seconds(restore.ms)})`),
      row('tar xzf, same files', `${mbps(bytes, tarExtract.ms)} (${seconds(tarExtract.ms)})`),
      row('restore time / tar xzf time', (restore.ms / tarExtract.ms).toFixed(2)),
      row(`/v2/context p99, no backup (${CONNECTIONS} conns, ${LOAD_SECONDS} s)`, latency(load.idle.p99Ms)),
      row(`/v2/context p99, server running backups (${load.backups} in ${LOAD_SECONDS} s)`, latency(load.busy.p99Ms)),
      row('p99 with backup / without', (load.busy.p99Ms / load.idle.p99Ms).toFixed(2)),
    ])
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/**
 * Load against a real server on the data dir, first idle, then while the server runs backups
 * (POST /api/backup, admin session) back to back into the scratch dir for the whole window.
 */
async function contextLatency(dataDir: string, scratch: string) {
  const store = await openStore(dataDir)
  let cookie: string
  let paths: string[]
  // The bench points the server's backups at the scratch dir and puts the operator's config back after.
  let savedConfig: unknown
  try {
    savedConfig = await store.settings.get('backup.config')
    const ids: string[] = []
    for (const library of await store.libraries.list()) {
      if (ids.length < 100 && (await store.libraries.versions(library.pk)).some((version) => version.state === 'finalized')) ids.push(library.id)
    }
    if (ids.length === 0) throw new Error(`${dataDir} holds no finalized library to query`)
    paths = questions(400, 7).map((q, i) => contextPath(ids[i % ids.length]!, q))
    const admin = (await store.users.verify(BENCH_ADMIN, BENCH_ADMIN)) ?? (await store.users.create({ email: BENCH_ADMIN, password: BENCH_ADMIN, role: 'admin' }))
    cookie = `lectern_session=${(await store.users.startSession(admin.id)).token}`
    await store.settings.set('backup.config', { destination: { type: 'dir', path: path.join(scratch, 'server-out') }, schedule: null, retention: { keep: 1 } })
  } finally {
    await store.close()
  }
  const server = await startServer({ kind: 'lectern', dataDir })
  const base = `http://127.0.0.1:${server.port}`
  try {
    // Both windows measure a server whose libraries are loaded, as the load runs do.
    await runLoad({ port: server.port, paths, seconds: WARMUP_SECONDS, connections: CONNECTIONS })
    const idle = await runLoad({ port: server.port, paths, seconds: LOAD_SECONDS, connections: CONNECTIONS })
    let backups = 0
    let loading = true
    const backupLoop = (async () => {
      while (loading) {
        const res = await fetch(`${base}/api/backup`, { method: 'POST', headers: { cookie } })
        if (res.status !== 202) throw new Error(`POST /api/backup answered ${res.status}: ${await res.text()}`)
        for (;;) {
          const status = (await (await fetch(`${base}/api/backup/status`, { headers: { cookie } })).json()) as { running: boolean }
          if (!status.running) break
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        backups++
      }
    })()
    const busy = await runLoad({ port: server.port, paths, seconds: LOAD_SECONDS, connections: CONNECTIONS })
    loading = false
    await backupLoop
    return { idle, busy, backups }
  } finally {
    await server.stop()
    const restoreConfig = await openStore(dataDir)
    if (savedConfig === undefined) await restoreConfig.settings.remove('backup.config')
    else await restoreConfig.settings.set('backup.config', savedConfig)
    await restoreConfig.close()
  }
}
