/**
 * The real-documentation store of the load test: the development corpora of the quality issue
 * (`npm run eval:prepare` builds them in bench/.work/dev-repos), ingested once through the
 * product's git path into bench/.work/store-docs and reused. Its questions are the development
 * set's, in users' words, plus one per distinct section title of the store ("how do I ..."), so a
 * run cycles through well over a thousand distinct questions as a real install would see.
 */
import fs from 'node:fs'
import path from 'node:path'
import { existsSync } from 'node:fs'
import { ingestCorpora, libraryIdOf, projectRoot, redirectGitHub } from '../eval/corpora.js'
import { defaultReposRoot, loadManifest } from '../eval/dev-corpora.js'
import { readQuestions } from '../../src/eval/questions.js'
import { resolveConfig } from '../../src/config.js'
import { openRuntime } from '../../src/runtime.js'
import { WORK_DIR } from './paths.js'

export interface DocsStore {
  dataDir: string
  libraryIds: string[]
  snippets: number
  /** Distinct (library, question) pairs. */
  asked: Array<{ libraryId: string; question: string }>
  buildMs: number
  reused: boolean
}

const MARKER = 'bench-docs.json'

/** The store, built first when missing; undefined (with the reason logged) when the corpora are not prepared. */
export async function ensureDocsStore(minQuestions: number, log: (line: string) => void): Promise<DocsStore | undefined> {
  const reposRoot = defaultReposRoot()
  const names = (await loadManifest()).corpora.map((c) => c.name)
  const missing = names.filter((name) => !existsSync(path.join(reposRoot, name, '.git')))
  if (missing.length > 0) {
    log(`  skipped: the development corpora are not prepared in ${reposRoot} (${missing.join(', ')}); run \`npm run eval:prepare\` first (bench/eval/README.md)`)
    return undefined
  }
  const dataDir = path.join(WORK_DIR, 'store-docs')
  let marker = readMarker(dataDir)
  const reused = marker !== undefined
  if (!marker) {
    fs.rmSync(dataDir, { recursive: true, force: true })
    const started = performance.now()
    await ingest(dataDir, reposRoot, names)
    marker = { buildMs: performance.now() - started }
    fs.writeFileSync(path.join(dataDir, MARKER), `${JSON.stringify(marker)}\n`)
  }
  const runtime = await openRuntime({ config: resolveConfig({ dataDir }).config })
  try {
    const dev = await readQuestions(path.join(projectRoot(), 'bench', 'eval', 'dev-questions.json'))
    const asked = dev.map((q) => ({ libraryId: libraryIdOf(q.library), question: q.question }))
    const seen = new Set(asked.map((a) => `${a.libraryId}|${a.question}`))
    let snippets = 0
    const titles: Array<{ libraryId: string; question: string }> = []
    for (const name of names) {
      const libraryId = libraryIdOf(name)
      const setPk = (await runtime.store.libraries.version((await runtime.store.libraries.byId(libraryId))!.pk, ''))!.currentSet!
      const rows = await runtime.store.snippets.allOfSet(setPk)
      snippets += rows.length
      for (const row of rows) {
        const question = `how do I ${row.title.replace(/[`#*_]/g, '').toLowerCase()}`
        const key = `${libraryId}|${question}`
        if (row.title.length < 8 || seen.has(key)) continue
        seen.add(key)
        titles.push({ libraryId, question })
      }
    }
    // Every library in turn, so no one library's questions run back to back.
    const byLibrary = new Map<string, typeof titles>()
    for (const t of titles) byLibrary.set(t.libraryId, [...(byLibrary.get(t.libraryId) ?? []), t])
    const lists = [...byLibrary.values()]
    for (let i = 0; asked.length < minQuestions && lists.some((l) => i < l.length); i++) {
      for (const list of lists) if (i < list.length && asked.length < minQuestions) asked.push(list[i])
    }
    return { dataDir, libraryIds: names.map(libraryIdOf), snippets, asked, buildMs: marker.buildMs, reused }
  } finally {
    await runtime.close()
  }
}

async function ingest(dataDir: string, reposRoot: string, names: string[]): Promise<void> {
  const restore = redirectGitHub(reposRoot)
  const runtime = await openRuntime({ config: resolveConfig({ dataDir }).config })
  try {
    await ingestCorpora(runtime, names)
  } finally {
    await runtime.close()
    restore()
  }
}

function readMarker(dataDir: string): { buildMs: number } | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, MARKER), 'utf8')) as { buildMs: number }
  } catch {
    return undefined
  }
}
