/**
 * Entry of the job worker thread (see thread.ts): its own store connection, embedders and HTTP
 * client, the same handlers and Worker as in-process, driven by messages from the server.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { EmbedderPool } from '../embed/pool.js'
import { createHttpClient } from '../sources/http.js'
import { openStore } from '../store/index.js'
import { createJobHandlers, WorkerTidying } from './handlers.js'
import { pacer } from './pace.js'
import { yieldCpuToRequests } from './priority.js'
import type { FromThread, LogLevel, ThreadData, ToThread } from './thread.js'
import { Worker, type JobLog } from './worker.js'

const port = parentPort!
const post = (message: FromThread) => port.postMessage(message)
const { config, requests } = workerData as ThreadData

/** Errors do not cross threads with their fields; send what a log line of one shows. */
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

const nice = yieldCpuToRequests()
if (nice !== undefined) log.info({ nice }, 'the job thread runs at the lowest scheduling priority (nice 19): requests come first')

const store = await openStore(config.dataDir)
const embedders = new EmbedderPool(store)
const http = createHttpClient(config.mode, config.fetch.allow)
const tidying = new WorkerTidying(store, forgetSet, log)
const worker = new Worker(store, createJobHandlers({ store, embedders, http, config, forgetSet }), log, { ...tidying.workerOptions, pace: pacer(requests) })

port.on('message', (message: ToThread) => {
  switch (message.type) {
    case 'start':
      worker.start()
      post({ type: 'started' })
      return
    case 'wake':
      worker.wake()
      return
    case 'run-next':
      void worker.runNext().then((ran) => post({ type: 'ran', id: message.id, ran }))
      return
    case 'stop':
      void worker.stop().then(() => {
        tidying.cancel()
        store.close()
        post({ type: 'stopped' })
      })
  }
})
