/**
 * serve(): the long-running server process. Takes the data-directory lock, builds the app,
 * listens, and on SIGTERM/SIGINT closes in order: stop accepting, let in-flight requests
 * finish, stop the worker (its job is queued again at the next start), close the database,
 * release the lock. A second signal while closing exits at once.
 */
import fs from 'node:fs'
import pino from 'pino'
import { applyStagedRestore } from '../src/backup/restore.js'
import { resolveSettings, type SettingsInput } from '../src/config.js'
import { dataPaths } from '../src/paths.js'
import { acquireDataDirLock } from '../src/store/lock.js'
import { buildApp } from './app.js'

/**
 * The exit code after a dashboard restore was staged: the restore is applied at the next start,
 * so a supervisor (systemd `Restart=on-failure`, a container restart policy) just starts again.
 */
export const RESTORE_STAGED_EXIT_CODE = 75

export async function serve(input: SettingsInput): Promise<void> {
  const settings = resolveSettings(input)
  const paths = dataPaths(settings.dataDir)
  fs.mkdirSync(paths.root, { recursive: true, mode: 0o700 })
  const lock = acquireDataDirLock(paths.lock, paths.root)
  let app: Awaited<ReturnType<typeof buildApp>>
  let stopForRestore = () => {}
  try {
    // Before the store opens: a staged restore replaces the files the store would open.
    await applyStagedRestore(paths, pino({ level: settings.logLevel }))
    app = await buildApp({ ...input, logger: true, onRestoreStaged: () => stopForRestore() })
    await app.listen({ port: settings.port, host: settings.host })
  } catch (err) {
    lock.release()
    throw err
  }
  app.log.info({ dataDir: paths.root, mode: settings.mode }, 'Lectern is ready')
  await new Promise<void>((resolve) => {
    let closing = false
    const stop = (signal: NodeJS.Signals) => {
      if (closing) {
        app.log.warn({ signal }, 'second signal: exiting now')
        process.exit(1)
      }
      closing = true
      app.log.info({ signal }, 'stopping: draining requests and the worker')
      app
        .close()
        .catch((err: unknown) => app.log.error({ err }, 'error while closing'))
        .finally(() => {
          lock.release()
          process.off('SIGTERM', stop)
          process.off('SIGINT', stop)
          resolve()
        })
    }
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)
    stopForRestore = () => {
      process.exitCode = RESTORE_STAGED_EXIT_CODE
      app.log.info({ exitCode: RESTORE_STAGED_EXIT_CODE }, 'a restore is staged: stopping so the next start applies it')
      stop('SIGTERM')
    }
  })
}
