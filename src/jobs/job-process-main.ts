/**
 * Entry of the job process (see job-process.ts): at the lowest CPU priority, its own store
 * connection, embedders and HTTP client, the same handlers and Worker as in-process, driven by
 * messages from the server.
 */
import { EmbedderPool } from '../embed/pool.js'
import { stopGitProcesses } from '../sources/git.js'
import { createHttpClient } from '../sources/http.js'
import { openStore } from '../store/index.js'
import { createJobHandlers, WorkerTidying } from './handlers.js'
import type { FromJobProcess, LogLevel, ToJobProcess } from './job-process.js'
import { pacer } from './pace.js'
import { yieldCpuToRequests } from './priority.js'
import { Worker, type JobLog } from './worker.js'

// First, before the jobs start threads or `git`, which take the priority of the thread that starts them.
const nice = yieldCpuToRequests()

const post = (message: FromJobProcess) => {
  if (process.connected) process.send!(message)
}

/** Errors do not cross processes with their fields; send what a log line of one shows. */
function cloneable(obj: object): object {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(obj)) {
    out[key] = value instanceof Error ? { type: value.name, message: value.message, stack: value.stack, ...('code' in value ? { code: value.code } : {}) } : value
  }
  return out
}

const line = (level: LogLevel) => (obj: object, msg: string) => post({ type: 'log', level, obj: cloneable(obj), msg })
const log: JobLog = { info: line('info'), warn: line('warn'), error: line('error') }
const forgetSet = (setPk: number) => post({ type: 'forget-set', setPk })

if (nice !== undefined) log.info({ nice }, 'the job process runs at the lowest scheduling priority (nice 19): requests come first')

/** Whether the server has requests in flight, as it last said. */
let requestsInFlight = false
let worker: Worker | undefined
/** Stops the jobs and closes the store. */
let stop: (() => Promise<void>) | undefined

/** Opens the store and builds the worker from the server's configuration, the first message. */
async function init(message: Extract<ToJobProcess, { type: 'init' }>): Promise<void> {
  const { config, runner } = message
  // What `ps` shows: which server's jobs these are (the command is `lectern jobs`, a CLI command).
  process.title = `lectern job process (${config.dataDir})`
  const store = await openStore(config.dataDir, { databaseUrl: config.database.url })
  const embedders = new EmbedderPool(store)
  const http = createHttpClient(config.mode, config.fetch.allow)
  const tidying = new WorkerTidying(store, forgetSet, log)
  const jobs = new Worker(store, createJobHandlers({ store, embedders, http, config, forgetSet }), log, { ...tidying.workerOptions, pace: pacer(() => requestsInFlight), runner, concurrency: config.jobs.concurrency })
  worker = jobs
  tidying.startHousekeeping()
  stop = async () => {
    await jobs.stop()
    tidying.cancel()
    await store.close()
  }
}

let ready: Promise<void> = Promise.resolve()

process.on('message', (message: ToJobProcess) => {
  if (message.type === 'requests') {
    requestsInFlight = message.inFlight
    return
  }
  // In the order they came, each once the one before is handled (init opens the store first).
  ready = ready.then(() => handle(message))
})

async function handle(message: ToJobProcess): Promise<void> {
  switch (message.type) {
    case 'init':
      return init(message)
    case 'start':
      await worker!.start()
      post({ type: 'started' })
      return
    case 'wake':
      worker!.wake()
      return
    case 'stop':
      await stop!()
      post({ type: 'stopped' })
  }
}

// The server stops the jobs in order when it is signalled (job-process.ts): the signal the whole
// session gets at a Ctrl-C, or a service manager sends to all the service's processes, is its.
process.on('SIGINT', () => {})
process.on('SIGTERM', () => {})

// The channel closes after 'stopped', or when the server died without stopping the jobs. Then the
// job process ends at once, as a thread would have with its process: a new server may already be
// starting jobs, and the job left running is queued again at that start.
process.on('disconnect', () => {
  stopGitProcesses()
  process.exit(0)
})
