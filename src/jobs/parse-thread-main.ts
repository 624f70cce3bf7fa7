/**
 * Entry of the parse thread (parse-thread.ts): for each task it is sent, loads the task's reader,
 * says so (the parse budget starts then), parses and answers with the output, or with the error
 * the parse threw (a LecternError keeps its code).
 */
import { parentPort } from 'node:worker_threads'
import { isLecternError } from '../errors.js'
import { parseTasks } from './parse-tasks.js'
import type { ParseReply, ParseRequest } from './parse-thread.js'

parentPort!.on('message', async ({ id, task, input }: ParseRequest) => {
  let reply: ParseReply
  try {
    const parse = (await parseTasks[task]()) as (input: unknown) => unknown
    parentPort!.postMessage({ id, started: true } satisfies ParseReply)
    reply = { id, ok: true, output: await parse(input) }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    reply = { id, ok: false, error: isLecternError(err) ? { message, code: err.code } : { message: `failed to parse: ${message}` } }
  }
  parentPort!.postMessage(reply)
})
