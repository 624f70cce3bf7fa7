/**
 * serve(): the long-running server process. Takes the data-directory lock, builds the app,
 * listens, and on SIGTERM/SIGINT closes in order: stop accepting, let in-flight requests
 * finish, stop the worker (its job is queued again at the next start), close the database,
 * release the lock. A second signal while closing exits at once.
 *
 * A dashboard restore is staged while the server runs and applied before the store opens: by
 * default serve closes the app and starts it again in the same process (the lock stays held
 * throughout, so nothing else can open the data directory in between); with `supervise: false`
 * (systemd, containers) it exits with RESTORE_STAGED_EXIT_CODE and the next start applies it.
 */
import fs from 'node:fs'
import pino from 'pino'
import { applyStagedRestore } from '../src/backup/restore.js'
import { resolveSettings, type ServerSettings, type SettingsInput } from '../src/config.js'
import { dataPaths, type DataPaths } from '../src/paths.js'
import { acquireDataDirLock } from '../src/store/lock.js'
import { buildApp } from './app.js'

/**
 * The exit code after a dashboard restore was staged under `--no-supervise`: the restore is
 * applied at the next start, so a restart policy (systemd `Restart=on-failure`, Docker, Kubernetes) finishes it.
 */
export const RESTORE_STAGED_EXIT_CODE = 75

export interface ServeOptions {
  /** Restart in-process after a staged restore (default true); false exits with RESTORE_STAGED_EXIT_CODE. */
  supervise?: boolean
}

export async function serve(input: SettingsInput, options: ServeOptions = {}): Promise<void> {
  const settings = resolveSettings(input)
  const paths = dataPaths(settings.dataDir)
  fs.mkdirSync(paths.root, { recursive: true, mode: 0o700 })
  const lock = acquireDataDirLock(paths.lock, paths.root)
  try {
    for (;;) {
      if ((await runServer(input, settings, paths)) === 'signal') return
      if (options.supervise === false) {
        process.exitCode = RESTORE_STAGED_EXIT_CODE
        return
      }
    }
  } finally {
    lock.release()
  }
}

/** One server lifetime: apply a staged restore, build, listen, and wait for a signal or a staged restore. */
async function runServer(input: SettingsInput, settings: ServerSettings, paths: DataPaths): Promise<'signal' | 'restore'> {
  // Before the store opens: a staged restore replaces the files the store would open.
  await applyStagedRestore(paths, pino({ level: settings.logLevel }))
  let stopForRestore = () => {}
  const app = await buildApp({ ...input, logger: true, onRestoreStaged: () => stopForRestore() })
  try {
    await app.listen({ port: settings.port, host: settings.host })
  } catch (err) {
    await app.close()
    throw err
  }
  app.log.info({ dataDir: paths.root, mode: settings.mode }, 'Lectern is ready')
  return new Promise((resolve) => {
    let closing = false
    const stop = (reason: 'signal' | 'restore', signal?: NodeJS.Signals) => {
      if (closing) {
        if (reason === 'restore') return
        app.log.warn({ signal }, 'second signal: exiting now')
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
