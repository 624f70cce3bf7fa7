/**
 * Entry point of a worker process of `lectern serve --workers N`, forked by the primary
 * (primary.ts) with node:cluster: it builds the app with the settings the primary resolved and
 * listens on the port the primary shares. Worker 1 also runs the jobs and the other once-only
 * work (see primary.ts for why); the others only serve, and relay what the rest must know:
 * a queued job (wake-jobs), a snippet set whose files were replaced (forget-set), a staged
 * restore. Rate limits are counted by the primary (rate-limit-client.ts).
 *
 * Stops on the primary's `stop`, and on SIGTERM/SIGINT itself (a terminal's Ctrl-C and
 * systemd's stop signal every process of the group): stop accepting, let in-flight requests
 * finish, stop the job worker (its job is queued again), exit 0. A second signal exits at once.
 */
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import { isLecternError } from '../../src/errors.js'
import { buildApp } from '../app.js'
import { listenOn } from '../listen.js'
import { createLogDestination, loggerOptions, type LogDestination } from '../logger.js'
import { isMessage, type FromWorker, type ToWorker } from './messages.js'
import { RateLimitClient } from './rate-limit-client.js'
import { RemoteJobRunner } from './remote-jobs.js'

type StartMessage = Extract<ToWorker, { type: 'start' }>

// The callback keeps a write to a channel the primary has just closed (it is stopping) from being
// an 'error' event, which, unhandled, would end this worker with EPIPE instead of a drain.
const send = (message: FromWorker): void => {
  if (process.connected) process.send?.(message, undefined, undefined, () => {})
}

class WorkerProcess {
  private app: FastifyInstance | undefined
  private logs: LogDestination | undefined
  private rateLimits: RateLimitClient | undefined
  private remoteJobs: RemoteJobRunner | undefined
  private started: Promise<void> | undefined
  private stopping = false
  private signals = 0

  receive(message: ToWorker): void {
    switch (message.type) {
      case 'start':
        this.started ??= this.start(message)
        return
      case 'rate-limit':
        this.rateLimits?.answer(message.answers)
        return
      case 'forget-set':
        this.app?.runtime.retriever.forgetSet(message.setPk)
        return
      case 'jobs-running':
        this.remoteJobs?.setRunning(message.running)
        return
      case 'wake-jobs':
        this.app?.runtime.worker.wake()
        return
      case 'stop':
        this.stop()
    }
  }

  /** The primary is gone: nothing can be counted or relayed any more; cluster exits this process. */
  orphaned(): void {
    this.rateLimits?.failAll(new Error('the primary process is gone'))
  }

  private async start({ worker, runsJobs, jobsRunning, config }: StartMessage): Promise<void> {
    const logs = createLogDestination(config.log.format)
    this.logs = logs
    this.rateLimits = new RateLimitClient(config.rateLimit, send)
    this.remoteJobs = runsJobs ? undefined : new RemoteJobRunner(() => send({ type: 'wake-jobs' }), jobsRunning)
    try {
      const app = await buildApp({
        ...config,
        worker,
        logStream: logs.stream,
        startWorker: runsJobs,
        jobRunner: this.remoteJobs ?? 'process',
        engineRebuild: 'thread',
        rateLimitCounter: this.rateLimits,
        onSetForgotten: (setPk) => send({ type: 'forget-set', setPk }),
        // Told as it happens, so every worker's readiness changes with this one's.
        onJobsRunning: runsJobs ? (running) => send({ type: 'jobs-running', running }) : undefined,
        onRestoreStaged: () => send({ type: 'restore-staged' }),
      })
      this.app = app
      const port = await listenOn(app, config.server)
      send({ type: 'listening', port })
    } catch (err) {
      pino(loggerOptions(config.log.level, worker), logs.stream).error({ err }, 'worker could not start')
      send({ type: 'start-failed', code: isLecternError(err) ? err.code : 'internal_error', message: (err as Error).message })
      logs.flush()
      process.exit(1)
    }
  }

  /** A signal to this process: the first stops it like the primary's `stop` (which may come too); a second exits at once. */
  signalled(signal: NodeJS.Signals): void {
    if (++this.signals > 1) {
      this.app?.log.warn({ signal }, 'second signal: exiting now')
      this.logs?.flush()
      process.exit(1)
    }
    this.stop(signal)
  }

  private stop(signal?: NodeJS.Signals): void {
    if (this.stopping) return
    this.stopping = true
    void (async () => {
      // A stop that arrives while the app is being built waits for it, then closes it.
      await this.started
      const app = this.app
      app?.log.info({ signal }, 'worker stopping: draining requests')
      await app?.close().catch((err: unknown) => app.log.error({ err }, 'error while closing'))
      app?.log.info({ droppedLogLines: this.logs?.dropped() ?? 0 }, 'worker stopped')
      this.logs?.flush()
      process.exit(0)
    })()
  }
}

const worker = new WorkerProcess()
process.on('message', (message: unknown) => {
  if (isMessage<ToWorker>(message)) worker.receive(message)
})
process.on('disconnect', () => worker.orphaned())
process.on('SIGTERM', (signal) => worker.signalled(signal))
process.on('SIGINT', (signal) => worker.signalled(signal))
send({ type: 'hello' })
