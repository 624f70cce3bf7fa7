/**
 * Entry of the parse thread (parse-thread.ts): for each task it is sent, loads the task's reader,
 * says so (the parse budget starts then), parses and answers with the output, or with the error
 * the parse threw (a LecternError keeps its code).
 */
import { parentPort } from 'node:worker_threads'
import { isLecternError } from '../errors.js'
import { parseTasks } from './parse-tasks.js'
import type { ParseReply, ParseRequest } from './parse-thread.js'

type Parser = (input: unknown) => unknown
/** Each task's parser, loaded once: an import() of a loaded module still costs a trip through the module loader. */
const parsers = new Map<ParseRequest['task'], Promise<Parser>>()
const parserOf = (task: ParseRequest['task']): Promise<Parser> => {
  let parser = parsers.get(task)
  if (!parser) parsers.set(task, (parser = parseTasks[task]() as Promise<Parser>))
  return parser
}

/** The tasks run one after another, in the order sent: each starts once the one before has answered. */
let queue: Promise<void> = Promise.resolve()
parentPort!.on('message', (request: ParseRequest) => {
  queue = queue.then(() => handle(request))
})

async function handle({ id, task, input }: ParseRequest): Promise<void> {
  let reply: ParseReply
  try {
    const parse = await parserOf(task)
    parentPort!.postMessage({ id, started: true } satisfies ParseReply)
    reply = { id, ok: true, output: await parse(input) }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    reply = { id, ok: false, error: isLecternError(err) ? { message, code: err.code } : { message: `failed to parse: ${message}` } }
  }
  parentPort!.postMessage(reply)
}
