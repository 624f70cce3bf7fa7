/**
 * Import of a large bundle (spec 8: up to 100 MB per import), built from real documentation
 * text: every README and docs/*.md under node_modules, parsed into snippets the way an ingest
 * does and spread over 50 libraries (the export maximum) until the payload reaches the target
 * size. Measures seconds from the bundle file to queued (validation and staging, entry by
 * entry), to searchable (every import job re-embedded with the hash embedder and a question
 * answered), and the peak RSS of that import, sampled every 50 ms. Everything lives in a
 * scratch directory removed at the end.
 */
import { generateKeyPairSync } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { ANONYMOUS } from '../../src/access.js'
import { writeBundle } from '../../src/airgap/bundle.js'
import { importBundle } from '../../src/airgap/import.js'
import { MAX_SNIPPET_CHARS, toImportLibrary, type ImportLibrary } from '../../src/airgap/payload.js'
import { completeSnippet, snippetsOf } from '../../src/jobs/ingest.js'
import { signLicense } from '../../src/license/format.js'
import { installLicense } from '../../src/license/state.js'
import { openRuntime } from '../../src/runtime.js'
import { resolveConfig } from '../../src/config.js'
import { codeListOf } from '../../src/search/render.js'
import type { Library } from '../../src/store/libraries.js'
import type { NewSnippet } from '../../src/store/snippets.js'
import { markdownTable, row, seconds } from './report.js'
import { WORK_DIR } from './paths.js'

const LIBRARIES = 50
const MB = 1024 * 1024

/** Markdown documents of the installed packages: READMEs and docs folders. */
function realDocs(root: string): Array<{ path: string; text: string }> {
  const docs: Array<{ path: string; text: string }> = []
  const visit = (dir: string, depth: number, inDocs: boolean) => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory() && depth < 4 && entry.name !== 'node_modules' && !entry.name.startsWith('.')) {
        visit(full, depth + 1, inDocs || entry.name === 'docs')
      } else if (entry.isFile() && /\.mdx?$/i.test(entry.name) && (inDocs || /^readme\.md$/i.test(entry.name))) {
        const text = fs.readFileSync(full, 'utf8')
        if (text.length > 200) docs.push({ path: path.relative(root, full), text })
      }
    }
  }
  visit(root, 0, false)
  return docs
}

/** A snippet made distinct for its `round`-th use, so de-duplication within a library keeps it. */
function revised(snippet: NewSnippet, round: number): NewSnippet {
  if (round === 0) return snippet
  const body =
    snippet.kind === 'code'
      ? JSON.stringify(codeListOf(snippet).map((c) => ({ ...c, code: `${c.code}\n// revision ${round}` })))
      : `${snippet.body}\n\nRevision ${round}.`
  return completeSnippet({ ...snippet, body })
}

/** 50 libraries of real docs text, cycling through the documents until `targetBytes` of JSON. */
function generatePayload(targetBytes: number): { libraries: ImportLibrary[]; bytes: number; snippets: number } {
  const documents = realDocs(path.resolve('node_modules'))
  if (documents.length === 0) throw new Error('no README or docs markdown under node_modules; run npm install first')
  // Each document is parsed once; later uses only revise its snippets.
  const parsed = documents.map((doc) => snippetsOf([doc], (file, anchor) => `${file}#${anchor}`).filter((s) => s.body.length <= MAX_SNIPPET_CHARS))
  const perLibrary = targetBytes / LIBRARIES
  const libraries: ImportLibrary[] = []
  let cursor = 0
  let bytes = 0
  let snippets = 0
  for (let i = 0; i < LIBRARIES; i++) {
    const id = `/bench-import/docs-${i}`
    const library: Library = { pk: i, id, title: `docs-${i}`, description: 'Real package docs for the import benchmark', sourceKind: 'github', sourceUrl: `https://github.com${id}`, branch: null, trustScore: 7, isPrivate: false, isImported: false, rules: [], options: {}, createdAt: '', updatedAt: '' }
    const picked: NewSnippet[] = []
    let size = 0
    while (size < perLibrary) {
      const round = Math.floor(cursor / documents.length)
      for (const snippet of parsed[cursor % documents.length]) {
        picked.push(revised(snippet, round))
        size += snippet.body.length + snippet.title.length + snippet.breadcrumb.length + 200
      }
      cursor++
    }
    const element = toImportLibrary(library, picked.map((s, pk) => ({ ...s, pk, setPk: 0, includes: s.includes ?? [], alsoAt: s.alsoAt ?? [] })), picked.reduce((n, s) => n + s.tokens, 0))
    bytes += Buffer.byteLength(JSON.stringify(element))
    snippets += picked.length
    libraries.push(element)
  }
  return { libraries, bytes, snippets }
}

export async function runImportBench(options: { targetBytes?: number } = {}): Promise<string> {
  const targetBytes = options.targetBytes ?? 100 * MB
  const scratch = path.join(WORK_DIR, `import-${process.pid}`)
  fs.rmSync(scratch, { recursive: true, force: true })
  fs.mkdirSync(scratch, { recursive: true })
  const previousKey = process.env.LECTERN_LICENSE_PUBLIC_KEY
  try {
    const bundle = path.join(scratch, 'lectern-libraries.zip')
    const generated = generatePayload(targetBytes)
    await writeBundle(bundle, generated.libraries)
    generated.libraries.length = 0

    const runtime = await openRuntime({ config: resolveConfig({ dataDir: path.join(scratch, 'data') }).config })
    try {
      const keys = generateKeyPairSync('ed25519')
      process.env.LECTERN_LICENSE_PUBLIC_KEY = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString()
      const now = Date.now()
      const license = signLicense({ customer: 'bench', edition: 'enterprise', offline: true, issuedAt: new Date(now).toISOString(), expiresAt: new Date(now + 86_400_000).toISOString(), licenseKeyId: 'lctl_bench000' }, keys.privateKey)
      installLicense(runtime, JSON.stringify(license))

      global.gc?.()
      let peak = process.memoryUsage().rss
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50)
      const start = performance.now()
      const result = await importBundle(runtime.store, bundle, false)
      const queuedMs = performance.now() - start
      if (result.skipped.length > 0) throw new Error(`the bundle was not imported whole: ${JSON.stringify(result.skipped.slice(0, 3))}`)
      await runtime.worker.drain()
      const answer = await runtime.retriever.getContext({ libraryId: result.queued[0], query: 'how to install and configure', tokens: 2000, caller: ANONYMOUS })
      const searchableMs = performance.now() - start
      clearInterval(sampler)
      peak = Math.max(peak, process.memoryUsage().rss)
      const failed = runtime.store.jobs.list({ states: ['failed'] })
      if (failed.length > 0) throw new Error(`import job failed: ${failed[0].errorMessage}`)
      const rows = [
        row('bundle', `${(fs.statSync(bundle).size / MB).toFixed(1)} MB zip, ${(generated.bytes / MB).toFixed(1)} MB JSON, ${result.queued.length} libraries, ${generated.snippets.toLocaleString('en-US')} snippets`),
        row('to queued (validate + stage)', seconds(queuedMs)),
        row('to searchable (hash embedder)', seconds(searchableMs)),
        row('peak RSS during import', `${(peak / MB).toFixed(0)} MB`, '< 1024 MB', peak < 1024 * MB),
        row('first answer', `${answer.snippets.length} snippets`),
      ]
      return `### Import of a bundle of real docs\n\n${markdownTable(rows)}\n`
    } finally {
      await runtime.close()
    }
  } finally {
    if (previousKey === undefined) delete process.env.LECTERN_LICENSE_PUBLIC_KEY
    else process.env.LECTERN_LICENSE_PUBLIC_KEY = previousKey
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}
