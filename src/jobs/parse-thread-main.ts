/**
 * Entry of the parse thread (parse-thread.ts): runs each task it is sent and answers with its
 * output, or with the error it threw (a LecternError keeps its code).
 */
import { parentPort } from 'node:worker_threads'
import { isLecternError } from '../errors.js'
import { parseTasks } from './parse-tasks.js'
import type { ParseReply, ParseRequest } from './parse-thread.js'

parentPort!.on('message', async ({ id, task, input }: ParseRequest) => {
  let reply: ParseReply
  try {
    const run = parseTasks[task] as (input: unknown) => Promise<unknown>
    reply = { id, ok: true, output: await run(input) }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    reply = { id, ok: false, error: isLecternError(err) ? { message, code: err.code } : { message: `failed to parse: ${message}` } }
  }
  parentPort!.postMessage(reply)
})
