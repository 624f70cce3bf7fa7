/**
 * A set whose engine file does not match its rows (every set after a restore) is rebuilt from
 * its rows off the serving thread: the request that needs it waits, the others are answered
 * meanwhile (`lectern serve`); should the rebuild thread fail, the set is rebuilt where it is asked.
 * On PostgreSQL the thread also writes a real embedder's vector index from the vectors the rows hold.
 */
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { describe, expect, it, onTestFinished } from 'vitest'
import { buildApp } from '../../server/app.js'
import { ANONYMOUS } from '../../src/library/access.js'
import type { Embedder } from '../../src/embed/types.js'
import { ingestSnippets } from '../../src/index/build.js'
import { SetEngine } from '../../src/index/engine.js'
import { engineFileKind, writeEngineFile } from '../../src/index/loaded-set.js'
import { claimFileOf } from '../../src/index/rebuild-claim.js'
import { SetFileRebuilder } from '../../src/index/rebuilder.js'
import { inspectVectorFile, removeVectorIndex } from '../../src/index/vector-index.js'
import { toNewSnippet } from '../../src/jobs/ingest.js'
import { engineFilePath, vectorIndexPath } from '../../src/install/paths.js'
import { Retriever } from '../../src/search/context.js'
import type { Store } from '../../src/store/index.js'
import { seedLibrary } from '../helpers/app.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { largeDocs } from '../helpers/large-docs.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { freshStore } from '../helpers/stores.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

const defer = suiteTeardown()
/** A server's app with one small library whose engine file is gone; closed after `use`. */
/**
 * Stands in for a process's rebuild thread: once `wait` resolves, rebuilds the file from the
 * rows, as the thread does; `started` is told of each rebuild as it begins.
 */
function standInRebuilder(store: Store, wait: Promise<void>, started: (pk: number) => void): SetFileRebuilder {
  return {
    closed: false,
    async rebuild(pk: number, at: string) {
      started(pk)
      await wait
      writeEngineFile(at, await store.snippets.allOfSet(pk), engineFileKind((await store.snippets.set(pk))!))
      return { bytes: fs.readFileSync(at) }
    },
  } as unknown as SetFileRebuilder
}

async function withSmallLibrary(use: (app: FastifyInstance, setPk: number, file: string) => Promise<void>): Promise<void> {
  const app = await buildApp({ dataDir: await tmpDataDir() })
  try {
    const { setPk } = await seedLibrary(app, '/acme/small', SMALL)
    const file = engineFilePath(app.runtime.store.paths, setPk)
    fs.rmSync(file)
    await use(app, setPk, file)
  } finally {
    await app.close()
  }
}

/** A data directory with a large library (and a small one) whose engine file is gone, as after a restore. */
async function largeLibraryWithoutEngineFile(): Promise<{ dataDir: string; setPk: number; file: string }> {
  const dataDir = await tmpDataDir()
  // No worker: its start-up sweep would race the sets seeded here (a set it finds half-made is removed).
  const seeding = await buildApp({ dataDir, startWorker: false })
  const { setPk } = await seedLibrary(seeding, '/acme/large', largeDocs(700))
  await seedLibrary(seeding, '/acme/small', SMALL)
  const file = engineFilePath(seeding.runtime.store.paths, setPk)
  await seeding.close()
  fs.rmSync(file)
  return { dataDir, setPk, file }
}

type LogLine = { msg: string; worker?: number; setPk?: number; snippets?: number; ms?: number; req?: { url?: string } }

/** Stops the server and returns its JSON log lines. */
async function stopAndReadLines(server: ServerProcess): Promise<LogLine[]> {
  server.process.kill('SIGTERM')
  return String((await server.process).stdout).split('\n').filter(Boolean).map((line) => JSON.parse(line) as LogLine)
}

/** The compiled thread, as lectern serve runs it (npm test builds dist/ first). */
const compiledThread = pathToFileURL(path.join(PROJECT_ROOT, 'dist/src/index/rebuild-thread.js'))

const SMALL = { 'docs/guide.md': '# Small\n\n## Start\n\nCall `start()` to begin.\n\n```js\nstart({ fast: true })\n```\n' }

describe('rebuilding an engine file', () => {
  it('lectern serve: answers other requests while a large set is rebuilt for the one that asked it', async () => {
    const { dataDir, setPk, file } = await largeLibraryWithoutEngineFile()
    const server = await startServer(dataDir, {}, defer, { args: ['--workers', '1'], logLevel: 'info' })
    const health = async () => (await fetch(`${server.url}/api/health`)).status
    expect(await health()).toBe(200)
    let answered = false
    const large = fetch(`${server.url}/api/v2/context?libraryId=/acme/large&query=configure%20feature12x1%20retries`).then(async (res) => {
      answered = true
      return { status: res.status, text: await res.text() }
    })
    // While the set is rebuilt, probes keep being answered; on the serving thread they would wait.
    let answeredMeanwhile = 0
    while (!answered) {
      expect(await health()).toBe(200)
      if (!answered) answeredMeanwhile++
    }
    const answer = await large
    // A failure names the server's own lines (the 500's request ID is in them), seen once in a full run.
    const why = answer.status === 200 ? '' : JSON.stringify((await stopAndReadLines(server)).filter((line) => (line as { level?: number }).level !== 30))
    expect(answer.status, `${answer.text} ${why}`).toBe(200)
    expect(answer.text).toContain('feature12x1')
    expect(answeredMeanwhile).toBeGreaterThanOrEqual(5)
    expect(fs.existsSync(file)).toBe(true)
    // The operator learns of the rebuild and its cost.
    const lines = await stopAndReadLines(server)
    const rebuilt = lines.filter((line) => line.msg.startsWith('rebuilt the engine data'))
    expect(rebuilt).toEqual([expect.objectContaining({ setPk, snippets: expect.any(Number), ms: expect.any(Number) })])
    expect(rebuilt[0].msg).toMatch(new RegExp(`^rebuilt the engine data of snippet set ${setPk} \\(\\d+ snippets\\) from its rows in \\d+ ms, on its own thread$`))
  })

  it('lectern serve --workers 2: one process rebuilds the set, the other loads the file it wrote', async () => {
    const { dataDir, setPk } = await largeLibraryWithoutEngineFile()
    const server = await startServer(dataDir, {}, defer, { args: ['--workers', '2'], logLevel: 'info' })
    // Connections go to the workers in turn: four at once reach both.
    const answers = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const res = await fetch(`${server.url}/api/v2/context?libraryId=/acme/large&query=configure%20feature${i}x1%20retries`)
        return { status: res.status, text: await res.text() }
      }),
    )
    for (const [i, answer] of answers.entries()) {
      expect(answer.status, answer.text).toBe(200)
      expect(answer.text).toContain(`feature${i}x1`)
    }
    const lines = await stopAndReadLines(server)
    const answeredBy = new Set(lines.filter((l) => l.msg === 'request completed' && l.req?.url?.startsWith('/api/v2/context')).map((l) => l.worker))
    expect(answeredBy).toEqual(new Set([1, 2]))
    expect(lines.filter((l) => l.msg.startsWith('rebuilt the engine data'))).toEqual([expect.objectContaining({ setPk })])
  })

  it('questions that ask for a set while it is rebuilt share one rebuild and one load', async () => {
    await withSmallLibrary(async (app, setPk) => {
      const { store } = app.runtime
      let release!: () => void
      const released = new Promise<void>((resolve) => (release = resolve))
      const rebuilds: number[] = []
      const rebuilder = standInRebuilder(store, released, (pk) => rebuilds.push(pk))
      const rebuilt: string[] = []
      const engine = new SetEngine(store, 2 ** 30, { info: (_obj, msg) => rebuilt.push(msg), warn: () => {} }, rebuilder)
      const set = (await store.snippets.set(setPk))!
      const asked = Array.from({ length: 10 }, () => engine.loaded(set))
      release()
      const loaded = await Promise.all(asked)
      expect(rebuilds).toEqual([setPk])
      expect(rebuilt).toEqual([expect.stringMatching(new RegExp(`^rebuilt the engine data of snippet set ${setPk} \\(\\d+ snippets\\)`))])
      expect(new Set(loaded).size).toBe(1)
      expect(loaded[0].builtFrom).toBe('rows')
      expect(await engine.loaded(set)).toBe(loaded[0])
    })
  })

  it('of two processes asking for the same set, one rebuilds it and the other loads its file', async () => {
    await withSmallLibrary(async (app, setPk, file) => {
      const { store } = app.runtime
      let release!: () => void
      const released = new Promise<void>((resolve) => (release = resolve))
      const rebuilds: string[] = []
      // Stand-ins for each process's thread; both engines share the data directory, as `--workers 2` does.
      const rebuilderOf = (name: string, wait: Promise<void>) => standInRebuilder(store, wait, () => rebuilds.push(name))
      const quiet = { info: () => {}, warn: () => {} }
      const first = new SetEngine(store, 2 ** 30, quiet, rebuilderOf('first', released))
      const second = new SetEngine(store, 2 ** 30, quiet, rebuilderOf('second', Promise.resolve()))
      const set = (await store.snippets.set(setPk))!
      const firstLoad = first.loaded(set)
      await pollUntil('the first to claim the rebuild', () => (rebuilds.length === 1 ? true : undefined))
      const secondLoad = second.loaded(set)
      release()
      const [a, b] = await Promise.all([firstLoad, secondLoad])
      expect(rebuilds).toEqual(['first'])
      expect([a.builtFrom, b.builtFrom]).toEqual(['rows', 'file'])
      expect(b.snippets.all().map((s) => s.pk)).toEqual(a.snippets.all().map((s) => s.pk))
      expect(fs.existsSync(claimFileOf(file))).toBe(false)
    })
  })

  it('the rebuild thread writes nothing for a set that is no longer live', async () => {
    await withSmallLibrary(async (app, setPk, file) => {
      const { store } = app.runtime
      const rebuilder = new SetFileRebuilder({ kind: 'sqlite', file: store.paths.database }, compiledThread)
      const gone = engineFilePath(store.paths, setPk + 1000)
      await expect(rebuilder.rebuild(setPk + 1000, gone)).rejects.toThrow(`snippet set ${setPk + 1000} is no longer live`)
      expect(fs.existsSync(gone)).toBe(false)
      await rebuilder.rebuild(setPk, file)
      expect(fs.existsSync(file)).toBe(true)
      await rebuilder.close()
    })
  })

  it('answers from the rebuilt bytes when the file cannot be written (a full or read-only disk), without rebuilding here', async () => {
    await withSmallLibrary(async (app, _setPk, file) => {
      // A directory where the file goes: no write or rename can replace it, not even root's.
      fs.mkdirSync(path.join(file, 'blocked'), { recursive: true })
      const warnings: string[] = []
      const rebuilder = new SetFileRebuilder({ kind: 'sqlite', file: app.runtime.store.paths.database }, compiledThread)
      const retriever = new Retriever(app.runtime.store, app.runtime.embedders, { info: () => {}, warn: (_obj, msg) => warnings.push(msg) }, 'fused', 2 ** 30, rebuilder)
      const answer = await retriever.getContext({ libraryId: '/acme/small', query: 'start', tokens: 5000, caller: ANONYMOUS })
      expect(answer.snippets.map((s) => s.title).join(' ')).toContain('Start')
      expect(warnings).toEqual(['the engine file is not a regular file; rebuilding it', 'could not write the engine file; it is rebuilt at the next load'])
      await rebuilder.close()
    })
  })

  it('rebuilds where the set is asked when the rebuild thread dies, and refuses once closed', async () => {
    await withSmallLibrary(async (app, setPk, file) => {
      const logged: string[] = []
      // A thread that dies on its first request.
      const script = path.join(await tmpDir(), 'dying-thread.mjs')
      fs.writeFileSync(script, "import { parentPort } from 'node:worker_threads'\nparentPort.on('message', () => process.exit(3))\n")
      const rebuilder = new SetFileRebuilder({ kind: 'sqlite', file: app.runtime.store.paths.database }, pathToFileURL(script))
      const retriever = new Retriever(app.runtime.store, app.runtime.embedders, { info: (_obj, msg) => logged.push(msg), warn: (_obj, msg) => logged.push(msg) }, 'fused', 2 ** 30, rebuilder)
      const answer = await retriever.getContext({ libraryId: '/acme/small', query: 'start', tokens: 5000, caller: ANONYMOUS })
      expect(answer.snippets.map((s) => s.title).join(' ')).toContain('Start')
      expect(logged).toEqual([
        'the engine file could not be rebuilt on its thread; rebuilding it here',
        expect.stringMatching(new RegExp(`^rebuilt the engine data of snippet set ${setPk} \\(\\d+ snippets\\) from its rows in \\d+ ms, on the serving thread$`)),
      ])
      expect(fs.existsSync(file)).toBe(true)
      await rebuilder.close()
      await expect(rebuilder.rebuild(setPk, file)).rejects.toThrow('the rebuild thread is closed')
    })
  })
})

describe('on PostgreSQL, the rebuild thread', () => {
  const serverDefer = suiteTeardown()
  /** Stored with the set, as a real embedder's are (migration 0029): deterministic, no server to ask. */
  const DIMENSIONS = 384
  const standInEmbedder: Embedder = {
    provider: 'ollama',
    model: 'stand-in',
    dimensions: async () => DIMENSIONS,
    embed: async (texts) =>
      texts.map((text) => {
        let seed = [...text].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7)
        return Float32Array.from({ length: DIMENSIONS }, () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) - 0.5)
      }),
  }
  const many = (count: number) =>
    Array.from({ length: count }, (_, i) =>
      toNewSnippet({ kind: 'info', breadcrumb: 'Guide', pageTitle: 'Guide', anchor: `s${i}`, content: `How the pipeline runs step ${i}.` }, `docs/guide.md#s${i}`),
    )

  /** The longest the event loop went without a turn while `work` ran, in ms. */
  async function longestStall(work: () => Promise<unknown>): Promise<number> {
    let last = performance.now()
    let longest = 0
    const ticker = setInterval(() => {
      const now = performance.now()
      longest = Math.max(longest, now - last)
      last = now
    }, 1)
    try {
      await work()
    } finally {
      clearInterval(ticker)
    }
    return Math.max(longest, performance.now() - last)
  }

  it('writes the engine file and the vector index of a set another replica built, while this thread keeps its turns', async () => {
    const store = await freshStore('postgres', onTestFinished, serverDefer)
    const { version } = await store.libraries.create({ id: '/acme/pipeline', title: 'pipeline', sourceKind: 'github', sourceUrl: 'x' })
    const { setPk } = await ingestSnippets({ store, embedder: standInEmbedder }, { versionPk: version.pk, commitSha: 'a' }, many(5000))
    const set = (await store.snippets.set(setPk))!
    // As on a replica that did not build the set: neither file is in its data directory.
    const vectorFile = vectorIndexPath(store.paths, setPk)
    const drop = () => {
      fs.rmSync(engineFilePath(store.paths, setPk))
      removeVectorIndex(vectorFile)
    }
    const logged: string[] = []
    const log = { info: (_obj: object, msg: string) => logged.push(msg), warn: (_obj: object, msg: string) => logged.push(msg) }

    // Without the thread (a process not started from dist/): the serving thread builds the index itself.
    drop()
    const here = new SetEngine(store, 2 ** 30, log)
    const loadedHere = await here.loaded(set)
    const stallHere = await longestStall(() => here.vectorIndex(loadedHere, set))
    expect(logged.pop()).toMatch(new RegExp(`^wrote the vector index of snippet set ${setPk} \\(5000 vectors\\) from its stored vectors in \\d+ ms, on the serving thread: the file missing$`))

    drop()
    logged.length = 0
    const rebuilder = new SetFileRebuilder({ kind: 'postgres', url: store.database.where }, compiledThread)
    onTestFinished(() => rebuilder.close())
    const engine = new SetEngine(store, 2 ** 30, log, rebuilder)
    const loaded = await engine.loaded(set)
    expect(loaded.builtFrom).toBe('rows')
    const stall = await longestStall(async () => expect((await engine.vectorIndex(loaded, set))?.size).toBe(5000))
    expect(logged).toEqual([
      expect.stringMatching(new RegExp(`^rebuilt the engine data of snippet set ${setPk} \\(5000 snippets\\) from its rows in \\d+ ms, on its own thread$`)),
      expect.stringMatching(new RegExp(`^wrote the vector index of snippet set ${setPk} \\(5000 vectors\\) from its stored vectors in \\d+ ms, on its own thread: the file missing$`)),
    ])
    expect(inspectVectorFile(vectorFile, { dimensions: DIMENSIONS, count: 5000 })).toBeUndefined()
    // usearch's build holds the thread it runs on: here for a page of vectors at a time, there never.
    expect(stall, `longest stall ${stall} ms with the thread, ${stallHere} ms without`).toBeLessThan(stallHere / 2)
    // A stored vector finds its own snippet.
    const [row] = await store.snippets.vectorPage(setPk, 4321, 1)
    expect(loaded.vectorIndex!.search(row!.vector!, 1)[0]!.pk).toBe(row!.pk)
  })

  it('writes no vector index for a set that is no longer live, nor for one whose rows hold no vectors', async () => {
    const store = await freshStore('postgres', onTestFinished, serverDefer)
    const { version } = await store.libraries.create({ id: '/acme/pipeline', title: 'pipeline', sourceKind: 'github', sourceUrl: 'x' })
    const { setPk } = await ingestSnippets({ store, embedder: standInEmbedder }, { versionPk: version.pk, commitSha: 'a' }, many(16))
    const rebuilder = new SetFileRebuilder({ kind: 'postgres', url: store.database.where }, compiledThread)
    onTestFinished(() => rebuilder.close())
    const gone = vectorIndexPath(store.paths, setPk + 1000)
    await expect(rebuilder.writeVectorIndex(setPk + 1000, gone)).rejects.toThrow(`snippet set ${setPk + 1000} is no longer live`)
    expect(fs.existsSync(gone)).toBe(false)
    const file = vectorIndexPath(store.paths, setPk)
    removeVectorIndex(file)
    await store.snippets.setVectors(setPk, null)
    expect(await rebuilder.writeVectorIndex(setPk, file)).toBeUndefined()
    expect(fs.existsSync(file)).toBe(false)
  })
})
