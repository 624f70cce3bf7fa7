/**
 * Stores of generated libraries for the load tests, built through the product's own
 * `libraries.create` + `ingestSnippets` (hash embedder) and kept under bench/.work/ so the
 * expensive one (1M snippets) is built once and reused by later runs.
 */
import fs from 'node:fs'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { ingestSnippets } from '../../src/index/build.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { resolveConfig } from '../../src/config.js'
import type { NewSnippet } from '../../src/store/snippets.js'
import { WORK_DIR, siblingModule } from './paths.js'

export interface CorpusSpec {
  /** Directory name under bench/.work/. */
  name: string
  libraries: number
  perLibrary: number
}

export interface Corpus {
  dataDir: string
  libraryIds: string[]
  snippets: number
  buildMs: number
  reused: boolean
}

interface Marker {
  libraries: number
  perLibrary: number
  snippets: number
  buildMs: number
}

const MARKER = 'bench-corpus.json'

export const libraryIdOf = (index: number): string => `/bench/lib-${String(index).padStart(4, '0')}`

/** Returns the corpus, building it first unless a complete one with the same shape exists. */
export async function ensureCorpus(spec: CorpusSpec, log: (line: string) => void): Promise<Corpus> {
  const dataDir = path.join(WORK_DIR, spec.name)
  const libraryIds = Array.from({ length: spec.libraries }, (_, i) => libraryIdOf(i))
  const existing = readMarker(dataDir)
  if (existing && existing.libraries === spec.libraries && existing.perLibrary === spec.perLibrary) {
    return { dataDir, libraryIds, snippets: existing.snippets, buildMs: existing.buildMs, reused: true }
  }
  // No marker means an interrupted or different build: start clean rather than trust it.
  fs.rmSync(dataDir, { recursive: true, force: true })
  const started = performance.now()
  const snippets = await build(dataDir, spec, log)
  const buildMs = performance.now() - started
  const marker: Marker = { libraries: spec.libraries, perLibrary: spec.perLibrary, snippets, buildMs }
  fs.writeFileSync(path.join(dataDir, MARKER), `${JSON.stringify(marker, null, 2)}\n`)
  return { dataDir, libraryIds, snippets, buildMs, reused: false }
}

function readMarker(dataDir: string): Marker | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, MARKER), 'utf8')) as Marker
  } catch {
    return undefined
  }
}

async function build(dataDir: string, spec: CorpusSpec, log: (line: string) => void): Promise<number> {
  const runtime = await openRuntime({ config: resolveConfig({ dataDir: dataDir }).config })
  const generator = new SnippetGenerator(spec.perLibrary)
  const started = performance.now()
  let total = 0
  try {
    let next = generator.library(0)
    for (let i = 0; i < spec.libraries; i++) {
      const snippets = await next
      if (i + 1 < spec.libraries) next = generator.library(i + 1)
      total += await ingestLibrary(runtime, i, snippets)
      if ((i + 1) % 100 === 0) {
        const rate = total / ((performance.now() - started) / 1000)
        log(`  ${spec.name}: ${i + 1}/${spec.libraries} libraries, ${total} snippets (${Math.round(rate)} snippets/s)`)
      }
    }
  } finally {
    await generator.close()
    await runtime.close()
  }
  return total
}

async function ingestLibrary(runtime: Runtime, index: number, snippets: NewSnippet[]): Promise<number> {
  const id = libraryIdOf(index)
  const { version } = await runtime.store.libraries.create({
    id,
    title: `Bench library ${index}`,
    sourceKind: 'github',
    sourceUrl: `https://github.com${id}`,
  })
  const result = await ingestSnippets(
    { store: runtime.store, embedder: await runtime.embedders.current() },
    { versionPk: version.pk, commitSha: null },
    snippets,
  )
  return result.snippets
}

/** Generates libraries' snippets on a worker thread, answering requests in order. */
class SnippetGenerator {
  private readonly worker = new Worker(siblingModule('snippet-worker'))
  private readonly pending: Array<{ resolve: (s: NewSnippet[]) => void; reject: (e: unknown) => void }> = []

  constructor(private readonly perLibrary: number) {
    this.worker.on('message', (snippets: NewSnippet[]) => this.pending.shift()?.resolve(snippets))
    this.worker.on('error', (err) => {
      for (const waiter of this.pending.splice(0)) waiter.reject(err)
    })
  }

  library(index: number): Promise<NewSnippet[]> {
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject })
      this.worker.postMessage({ library: index, count: this.perLibrary })
    })
  }

  async close(): Promise<void> {
    await this.worker.terminate()
  }
}
