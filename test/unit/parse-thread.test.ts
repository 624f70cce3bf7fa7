/**
 * The parse thread (src/jobs/parse-thread.ts) with its real compiled script: each task ends
 * within the budget whatever its input, an abort ends it at once, a parser that throws or a
 * thread that runs out of memory fail the one document, and the next task gets a fresh thread.
 */
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { isLecternError } from '../../src/errors.js'
import { ParseThread } from '../../src/jobs/parse-thread.js'
import { ParseFailure } from '../../src/parse/failure.js'
import { tmpDir } from '../helpers/tmp.js'

const BRACES = '{'.repeat(300_000) + '}'.repeat(300_000)
const GUIDE = { path: 'guide.md', text: '# Guide\n\n## Install\n\nRun this.\n\n```js\nthing.start()\n```\n' }

const threads: ParseThread[] = []
const thread = (budgetMs: number, script?: URL) => {
  const made = new ParseThread({ budgetMs, script })
  threads.push(made)
  return made
}
afterAll(async () => {
  for (const made of threads) await made.close()
})

async function failure(promise: Promise<unknown>): Promise<ParseFailure> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(ParseFailure)
  return err as ParseFailure
}

describe('the parse thread', () => {
  it('cuts a parse off at the budget, skips only that document, and parses the next on a new thread', async () => {
    const parser = thread(1_000)
    const started = performance.now()
    const over = await failure(parser.run('document', { doc: { path: 'braces.mdx', text: BRACES } }))
    expect(over).toMatchObject({ reason: 'took over the 1 s parse budget', overBudget: true })
    expect(performance.now() - started).toBeLessThan(5_000)
    const next = await parser.run('document', { doc: GUIDE })
    expect(next.snippets.map((s) => s.kind)).toContain('code')
  })

  it('runs the tasks sent ahead in order, and sends those behind a cut-off task to a new thread', async () => {
    const parser = thread(1_000)
    const docs = [GUIDE, { path: 'braces.mdx', text: BRACES }, { ...GUIDE, path: 'again.md' }, { ...GUIDE, path: 'third.md' }]
    const outcomes = await Promise.all(docs.map((doc) => parser.run('document', { doc }).then((r) => r.snippets.length, (e: ParseFailure) => e.reason)))
    expect(outcomes).toEqual([expect.any(Number), 'took over the 1 s parse budget', expect.any(Number), expect.any(Number)])
    expect(outcomes[0]).toBeGreaterThan(0)
  })

  it('ends a parse at once when the job is aborted, with the abort reason', async () => {
    const parser = thread(600_000)
    const job = new AbortController()
    const running = parser.run('document', { doc: { path: 'braces.mdx', text: BRACES } }, job.signal)
    setTimeout(() => job.abort(new Error('cancelled by the test')), 300)
    const started = performance.now()
    await expect(running).rejects.toThrow('cancelled by the test')
    expect(performance.now() - started).toBeLessThan(2_000)
    await expect(parser.run('document', { doc: GUIDE }, job.signal)).rejects.toThrow('cancelled by the test')
    expect((await parser.run('document', { doc: GUIDE })).snippets.length).toBeGreaterThan(0)
  })

  it("fails a document whose parser throws with the parser's message, and keeps a reader's own error code", async () => {
    const parser = thread(20_000)
    const broken = await failure(parser.run('source', { path: 'src/broken.py', text: 'def broken(:\n' }))
    expect(broken).toMatchObject({ overBudget: false })
    expect(broken.reason).toMatch(/^failed to parse: /)
    const notASpec = await parser.run('openapi', { text: 'just: yaml', origin: 'upload:x.yaml' }).catch((e: unknown) => e)
    expect(isLecternError(notASpec) && notASpec.code).toBe('validation_error')
    expect((notASpec as Error).message).toBe('upload:x.yaml is not an OpenAPI spec: it has no "openapi" or "swagger" version field.')
  })

  it('fails a document whose parse runs the thread out of memory, as over budget', async () => {
    const script = path.join(await tmpDir(), 'hungry-thread.mjs')
    fs.writeFileSync(script, "import { parentPort } from 'node:worker_threads'\nparentPort.on('message', () => { const kept = []; for (;;) kept.push(new Array(1e6).fill(1)) })\n")
    const parser = thread(60_000, pathToFileURL(script))
    const hungry = await failure(parser.run('document', { doc: GUIDE }))
    expect(hungry).toMatchObject({ reason: 'needed over 512 MB of memory to parse', overBudget: true })
  })
})
