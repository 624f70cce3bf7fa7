/**
 * Import of about 100 MB (spec 8: at most 100 MB per import), built from real documentation
 * text: every README and docs/*.md under node_modules, parsed into snippets the way an ingest
 * does and spread over 50 libraries (the export maximum) until the JSON reaches the target size.
 * The bundle is generated here once and kept under bench/.work/; the same libraries, as many as
 * fit 100 MB, are also imported as a JSON payload file. Each import runs in a child process of
 * its own (import-child.ts) as `lectern import <file>` runs it, so its peak RSS is the import's
 * alone. Measures seconds from the file to queued (validation and staging), to searchable (every
 * import job re-embedded with the hash embedder and a question answered), and the child's peak
 * RSS, sampled every 50 ms and as the kernel's VmHWM. Data directories and the payload live in a
 * scratch directory removed at the end.
 */
import { fork } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { readBundle, writeBundle } from '../../src/airgap/bundle.js'
import { MAX_IMPORT_BYTES } from '../../src/airgap/import.js'
import { MAX_SNIPPET_CHARS, toImportLibrary, type ImportLibrary } from '../../src/airgap/payload.js'
import { completeSnippet, snippetsOf } from '../../src/jobs/ingest.js'
import { signLicense } from '../../src/license/format.js'
import { codeListOf } from '../../src/search/render.js'
import type { Library } from '../../src/store/libraries.js'
import type { NewSnippet } from '../../src/store/snippets.js'
import type { ImportChildReport } from './import-child.js'
import { markdownTable, row, seconds, type Row } from './report.js'
import { siblingModule, WORK_DIR } from './paths.js'

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
    const library: Library = { pk: i, id, title: `docs-${i}`, description: 'Real package docs for the import benchmark', sourceKind: 'github', sourceUrl: `https://github.com${id}`, branch: null, trustScore: 7, isPrivate: false, isImported: false, teamPk: null, rules: [], options: {}, createdAt: '', updatedAt: '' }
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

interface BundleMarker {
  targetBytes: number
  jsonBytes: number
  snippets: number
  libraries: number
}

/** The bundle for `targetBytes`, generated once and kept under bench/.work/ for later runs. */
async function ensureBundle(targetBytes: number): Promise<{ file: string; marker: BundleMarker }> {
  const file = path.join(WORK_DIR, `import-bundle-${Math.round(targetBytes / MB)}mb.zip`)
  const markerFile = `${file}.json`
  try {
    const marker = JSON.parse(fs.readFileSync(markerFile, 'utf8')) as BundleMarker
    if (marker.targetBytes === targetBytes && fs.existsSync(file)) return { file, marker }
  } catch {
    // No marker: an interrupted or first build, made again below.
  }
  fs.mkdirSync(WORK_DIR, { recursive: true })
  const generated = generatePayload(targetBytes)
  await writeBundle(file, generated.libraries)
  const marker: BundleMarker = { targetBytes, jsonBytes: generated.bytes, snippets: generated.snippets, libraries: generated.libraries.length }
  fs.writeFileSync(markerFile, `${JSON.stringify(marker, null, 2)}\n`)
  return { file, marker }
}

interface PayloadFile {
  file: string
  bytes: number
  libraries: number
  snippets: number
}

/**
 * The bundle's libraries as a JSON payload (`{"libraries": [...]}`) at `file`: the first ones,
 * as many as fit the 100 MB cap, read back through the product's bundle reader.
 */
async function writePayload(bundle: string, file: string): Promise<PayloadFile> {
  const out = fs.openSync(file, 'w')
  let bytes = Buffer.byteLength('{"libraries":[]}')
  let libraries = 0
  let snippets = 0
  let isFull = false
  try {
    fs.writeSync(out, '{"libraries":[')
    await readBundle(bundle, (raw) => {
      const text = `${libraries > 0 ? ',' : ''}${JSON.stringify(raw)}`
      isFull ||= bytes + Buffer.byteLength(text) > MAX_IMPORT_BYTES
      if (isFull) return
      fs.writeSync(out, text)
      bytes += Buffer.byteLength(text)
      libraries++
      const { codeSnippets, infoSnippets } = raw as ImportLibrary
      snippets += codeSnippets.length + infoSnippets.length
    })
    fs.writeSync(out, ']}')
  } finally {
    fs.closeSync(out)
  }
  return { file, bytes, libraries, snippets }
}

/** Runs the import of `file` in a child process of its own (import-child.ts) and returns its report. */
async function importInChild(dataDir: string, file: string, licenseFile: string, publicKey: string): Promise<ImportChildReport> {
  const child = fork(siblingModule('import-child'), [dataDir, file, licenseFile], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, LECTERN_LICENSE_PUBLIC_KEY: publicKey },
  })
  let report: ImportChildReport | undefined
  child.once('message', (message: ImportChildReport) => (report = message))
  const [code] = (await once(child, 'exit')) as [number | null]
  if (code !== 0 || !report) throw new Error(`the import child exited with code ${code} without a report`)
  return report
}

const megabytes = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`

function reportRows(what: string, input: string, report: ImportChildReport): Row[] {
  const peak = Math.max(report.sampledPeakRss, report.kernelPeakRss ?? 0)
  return [
    row(what, input),
    row(`${what}: to queued (validate + stage)`, seconds(report.queuedMs)),
    row(`${what}: to searchable (hash embedder)`, seconds(report.searchableMs)),
    row(
      `${what}: peak RSS of the import's own process (sampled every 50 ms / kernel VmHWM)`,
      `${megabytes(report.sampledPeakRss)} / ${report.kernelPeakRss === null ? 'n/a' : megabytes(report.kernelPeakRss)}`,
      '< 1024 MB',
      peak < 1024 * MB,
    ),
    row(`${what}: first answer`, `${report.answerSnippets} snippets`),
  ]
}

export async function runImportBench(options: { targetBytes?: number } = {}): Promise<string> {
  const targetBytes = options.targetBytes ?? 100 * MB
  const { file: bundle, marker } = await ensureBundle(targetBytes)
  const scratch = path.join(WORK_DIR, `import-${process.pid}`)
  fs.rmSync(scratch, { recursive: true, force: true })
  fs.mkdirSync(scratch, { recursive: true })
  try {
    const payload = await writePayload(bundle, path.join(scratch, 'payload.json'))
    const keys = generateKeyPairSync('ed25519')
    const now = Date.now()
    const license = signLicense({ customer: 'bench', edition: 'enterprise', offline: true, issuedAt: new Date(now).toISOString(), expiresAt: new Date(now + 86_400_000).toISOString(), licenseKeyId: 'lctl_bench000' }, keys.privateKey)
    const licenseFile = path.join(scratch, 'license.json')
    fs.writeFileSync(licenseFile, JSON.stringify(license))
    const publicKey = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString()
    const fromBundle = await importInChild(path.join(scratch, 'bundle-data'), bundle, licenseFile, publicKey)
    const fromPayload = await importInChild(path.join(scratch, 'payload-data'), payload.file, licenseFile, publicKey)
    const rows = [
      ...reportRows('bundle', `${(fs.statSync(bundle).size / MB).toFixed(1)} MB zip, ${(marker.jsonBytes / MB).toFixed(1)} MB JSON, ${fromBundle.libraries} libraries, ${marker.snippets.toLocaleString('en-US')} snippets`, fromBundle),
      ...reportRows('JSON payload', `${(payload.bytes / MB).toFixed(1)} MB, the first ${payload.libraries} libraries of the bundle, ${payload.snippets.toLocaleString('en-US')} snippets`, fromPayload),
    ]
    return `### Import of real docs, as a bundle and as a JSON payload\n\n${markdownTable(rows)}\n`
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/** `node dist/bench/perf/import.js [megabytes]`: the import figures alone (default 100 MB of JSON in the bundle). */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const target = Number(process.argv[2] ?? 100)
  console.log(await runImportBench({ targetBytes: target * MB }))
}
