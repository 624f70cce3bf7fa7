/**
 * serve(): the long-running server process. Takes the data-directory lock, builds the app,
 * listens, and on SIGTERM/SIGINT closes in order: stop accepting, let in-flight requests
 * finish, stop the worker (its job is queued again), close the database,
 * release the lock. A second signal while closing exits at once.
 *
 * A dashboard restore is staged while the server runs and applied before the store opens: by
 * default serve closes the app and starts it again in the same process (the lock stays held
 * throughout, so nothing else can open the data directory in between); with `supervise: false`
 * (systemd, containers) it exits with RESTORE_STAGED_EXIT_CODE and the next start applies it.
 * A staged restore that fails to apply leaves the data unchanged and is logged and recorded
 * (GET /api/backup/status `lastRestore`); supervised, the server then starts on the current data;
 * with `supervise: false` it exits with RESTORE_FAILED_EXIT_CODE instead, so the service manager
 * sees a failure (systemd's OnFailure=, `systemctl status`), and its restart policy starts it again
 * on the current data (the failed archive was moved aside, so that start does not retry it).
 *
 * With `--workers N` (N > 1) this process becomes the primary of N worker processes
 * (cluster/primary.ts): it keeps the lock and the restore loop below, and each lifetime runs the
 * workers instead of an app. With one worker everything happens in this process, as above.
 */
import fs from 'node:fs'
import os from 'node:os'
import pino, { type Logger } from 'pino'
import { audit, SYSTEM } from '../src/audit/log.js'
import { auditRestore } from '../src/audit/restore.js'
import { applyStagedRestore, type StagedRestoreOutcome } from '../src/backup/restore.js'
import type { LecternConfig, LogFormat, ResolvedConfig } from '../src/config.js'
import { createDataDir, dataDirOrigin } from '../src/install/data-dir.js'
import { recordInstallMode, refuseOtherMode, withDatabaseMode } from '../src/install/mode.js'
import { dataPaths, type DataPaths } from '../src/install/paths.js'
import { prepareSetup, tokenElsewhere } from '../src/install/setup.js'
import { openStore, type Store } from '../src/store/index.js'
import { acquireDataDirLock } from '../src/store/lock.js'
import { APP_VERSION } from '../src/install/version.js'
import { buildApp } from './app.js'
import { ClusterPrimary } from './cluster/primary.js'
import { SharedRateLimiter } from '../src/net/shared-rate-limit.js'
import { listenOn } from './listen.js'
import { createLogDestination, isPretty, loggerOptions, type LogDestination } from './logger.js'
import { registerReplica, type ReplicaRegistration } from '../src/install/replica.js'

/**
 * The exit code after a dashboard restore was staged under `--no-supervise`: the restore is
 * applied at the next start, so a restart policy (systemd `Restart=on-failure`, Docker, Kubernetes) finishes it.
 */
export const RESTORE_STAGED_EXIT_CODE = 75
/** The exit code under `--no-supervise` when a staged restore failed to apply at this start. */
export const RESTORE_FAILED_EXIT_CODE = 76

export async function serve(given: ResolvedConfig): Promise<void> {
  // On PostgreSQL the install's recorded mode is read from its database (the data directory's is read already).
  const resolved = await withDatabaseMode(given)
  const { config } = resolved
  const paths = dataPaths(config.dataDir)
  const clustered = config.server.workers > 1
  const logs = createLogDestination(config.log.format)
  const log = pino(loggerOptions(config.log.level, clustered ? 0 : undefined), logs.stream)
  const creating = config.database.url === '' && !fs.existsSync(paths.database)
  createDataDir(resolved)
  const lock = acquireDataDirLock(paths.lock, paths.root)
  let replica: ReplicaRegistration | undefined
  try {
    replica = await registerPostgresReplica(config, log)
  } catch (err) {
    lock.release()
    throw err
  }
  log.info(
    { version: APP_VERSION, dataDir: paths.root, mode: config.mode, ...(clustered ? { workers: config.server.workers } : {}), ...(resolved.file ? { configFile: resolved.file } : {}) },
    `Lectern ${APP_VERSION} starting`,
  )
  if (creating) log.info({ dataDir: paths.root }, `No Lectern data in ${paths.root} yet: creating a new install there (${dataDirOrigin(resolved)})`)
  const cpus = os.availableParallelism()
  if (config.server.workers > cpus) {
    // Accepted, since an operator may have reasons, but said: it usually slows answers down.
    log.warn({ workers: config.server.workers, cpus }, `${config.server.workers} workers on ${cpus} CPU${cpus === 1 ? '' : 's'}: more serving processes than CPUs only adds contention (server.workers, --workers)`)
  }
  // The address goes beside the lock, for `lectern status`.
  const listening = (url: string) => lock.describe({ server: url })
  try {
    for (;;) {
      const ended = clustered ? await runCluster(resolved, paths, logs, log, listening) : await runServer(resolved, paths, logs, listening)
      if (ended === 'signal') return
      if (ended === 'restore-failed') {
        log.error({ exitCode: RESTORE_FAILED_EXIT_CODE }, 'stopped: the staged restore failed (see above); the next start runs on the current data')
        process.exitCode = RESTORE_FAILED_EXIT_CODE
        return
      }
      if (!config.server.supervise) {
        log.info({ exitCode: RESTORE_STAGED_EXIT_CODE }, 'stopped to apply the staged restore at the next start')
        process.exitCode = RESTORE_STAGED_EXIT_CODE
        return
      }
    }
  } finally {
    await replica?.release()
    lock.release()
    log.info({ droppedLogLines: logs.dropped() }, 'Lectern stopped')
    logs.flush()
  }
}

/**
 * On PostgreSQL, this server's row among the install's replicas (src/install/replica.ts), kept
 * until it stops, across the restarts of a staged restore. Undefined on SQLite, where the data
 * directory's lock tells what the row does.
 */
async function registerPostgresReplica(config: LecternConfig, log: Logger): Promise<ReplicaRegistration | undefined> {
  if (config.database.url === '') return undefined
  const store = await openStore(config.dataDir, { databaseUrl: config.database.url })
  const registered = await registerReplica(store, log).catch(async (err: unknown) => {
    await store.close()
    throw err
  })
  return {
    async release() {
      await registered.release()
      await store.close()
    },
  }
}

/**
 * One lifetime of the primary of `--workers N`: apply a staged restore, open the data directory
 * once (migrations, the secret key, an interrupted restore's completion happen here, not raced
 * by N workers, and a directory that cannot open stops the start once), then run the workers
 * until a signal or a staged restore.
 */
async function runCluster(resolved: ResolvedConfig, paths: DataPaths, logs: LogDestination, log: Logger, listening: (url: string) => void): Promise<'signal' | 'restore' | 'restore-failed'> {
  const { config } = resolved
  const staged = await applyStagedRestore(paths, log)
  if (staged?.state === 'failed' && !config.server.supervise) return 'restore-failed'
  refuseOtherMode(resolved)
  const store = await openStore(config.dataDir, { databaseUrl: config.database.url })
  let setup: Setup
  try {
    await recordInstallMode(store.settings, config.mode)
    await auditStagedRestore(store, staged, log)
    setup = await prepareOrFindSetup(store, paths)
  } catch (err) {
    await store.close()
    throw err
  }
  // On PostgreSQL the primary's rate-limit counts are shared with the other replicas through the
  // store, kept open for it; on SQLite the primary needs no database.
  const shared = store.database.kind === 'postgres' ? new SharedRateLimiter(config.rateLimit, store.rateCounts, log) : undefined
  if (!shared) await store.close()
  try {
    return await new ClusterPrimary(config, log, logs, shared).run((url) => {
      listening(url)
      announceSetup(setup, url, log, config.log.format)
    })
  } finally {
    if (shared) {
      await shared.close()
      await store.close()
    }
  }
}

/** One server lifetime: apply a staged restore, build, listen, and wait for a signal or a staged restore. */
async function runServer(resolved: ResolvedConfig, paths: DataPaths, logs: LogDestination, listening: (url: string) => void): Promise<'signal' | 'restore' | 'restore-failed'> {
  const { config } = resolved
  // Before the store opens: a staged restore replaces the files the store would open.
  const staged = await applyStagedRestore(paths, pino(loggerOptions(config.log.level), logs.stream))
  if (staged?.state === 'failed' && !config.server.supervise) return 'restore-failed'
  // Before buildApp: it starts the job worker, which must not run a job in the wrong mode.
  refuseOtherMode(resolved)
  let stopForRestore = () => {}
  const app = await buildApp({ ...config, jobRunner: 'process', engineRebuild: 'thread', logStream: logs.stream, onRestoreStaged: () => stopForRestore() })
  await recordInstallMode(app.runtime.store.settings, config.mode)
  await auditStagedRestore(app.runtime.store, staged, app.log)
  const setup = await prepareOrFindSetup(app.runtime.store, paths)
  const port = await listenOn(app, config.server)
  const url = `http://${config.server.host}:${port}`
  app.log.info({ url }, 'Lectern is listening (ready once the job process has started)')
  listening(url)
  announceSetup(setup, url, app.log, config.log.format)
  return new Promise((resolve) => {
    let closing = false
    const stop = (reason: 'signal' | 'restore', signal?: NodeJS.Signals) => {
      if (closing) {
        if (reason === 'restore') return
        app.log.warn({ signal }, 'second signal: exiting now')
        logs.flush()
        process.exit(1)
      }
      closing = true
      app.log.info({ signal, reason }, 'stopping: draining requests and the worker')
      app
        .close()
        .catch((err: unknown) => app.log.error({ err }, 'error while closing'))
        .finally(() => {
          process.off('SIGTERM', onSignal)
          process.off('SIGINT', onSignal)
          resolve(reason)
        })
    }
    const onSignal = (signal: NodeJS.Signals) => stop('signal', signal)
    process.on('SIGTERM', onSignal)
    process.on('SIGINT', onSignal)
    stopForRestore = () => stop('restore')
  })
}

type Setup = Awaited<ReturnType<typeof prepareSetup>> | { elsewhere: { host: string; file: string } }

/** A fresh install's setup token: made by this start, or (PostgreSQL) by another live replica. */
async function prepareOrFindSetup(store: Store, paths: DataPaths): Promise<Setup> {
  const elsewhere = await tokenElsewhere(store, paths)
  return elsewhere ? { elsewhere } : await prepareSetup(store, paths)
}

/**
 * A fresh install: says where the dashboard's setup page is. The token goes to a person's
 * terminal only (never into the log, which is kept and shipped, nor between JSON log lines that a
 * program reads); a service's operator reads the file instead.
 */
function announceSetup(setup: Setup, url: string, log: Pick<Logger, 'info'>, format: LogFormat): void {
  if (!setup) return
  if ('elsewhere' in setup) {
    const { host, file } = setup.elsewhere
    log.info({ setupUrl: `${url}/setup`, tokenHost: host, tokenFile: file }, `No admin yet: open ${url}/setup and enter the setup token another replica made, in ${file} on ${host} (or run \`lectern admin create\`)`)
    return
  }
  log.info({ setupUrl: `${url}/setup`, tokenFile: setup.file }, `No admin yet: open ${url}/setup and enter the setup token from ${setup.file} to create the first one (or run \`lectern admin create\`)`)
  if (process.stderr.isTTY && isPretty(format)) process.stderr.write(`\nSetup token: ${setup.token}\nOpen ${url}/setup in a browser and enter it to create the first admin.\n\n`)
}

/**
 * Records a staged restore that this start applied, or failed to apply, in the audit log: who
 * staged it is in the log already, carried over from the data set aside (src/audit/restore.ts).
 */
async function auditStagedRestore(store: Store, staged: StagedRestoreOutcome | undefined, log: Pick<Logger, 'warn'>): Promise<void> {
  try {
    if (staged?.state === 'applied') await auditRestore(store, SYSTEM, staged.result, { via: 'staged' })
    if (staged?.state === 'failed') await audit(store, SYSTEM, 'restore.failed', null, { via: 'staged', code: staged.error.code })
  } catch (err) {
    log.warn({ err }, 'could not record the staged restore in the audit log')
  }
}
