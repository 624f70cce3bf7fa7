/**
 * Import of about 100 MB (spec 8: at most 100 MB per import), built from real documentation
 * text: every README and docs/*.md under node_modules, parsed into snippets the way an ingest
 * does, spread over 50 libraries (the export maximum) and, the hardest case for memory, put in
 * one library of 86 MB. Each bundle is generated here once and kept under bench/.work/; the same
 * libraries, as many as fit 100 MB, are also imported as a JSON payload file.
 *
 * Two paths are measured. `lectern import <file>`: the import runs in a child process of its own
 * (import-child.ts), so its peak RSS is the import's alone. Over HTTP: a real `lectern serve`,
 * whose own process reads, validates and stages the body, and whose job process runs the import
 * jobs. Each reports seconds from the file to queued (reading, validation and staging) and to
 * searchable (every import job re-embedded with the hash embedder), and the kernel's peak resident
 * set above the process's idle one (VmHWM, reset just before the import), once queued and with
 * the jobs. Data directories and payloads live in a scratch directory removed at the end.
 */
import { fork, spawn } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { readBundle, writeBundle } from '../../src/airgap/bundle.js'
import { MAX_IMPORT_BYTES } from '../../src/airgap/import.js'
import { MAX_SNIPPET_CHARS, toImportLibrary, type ImportLibrary } from '../../src/airgap/payload.js'
import { completeSnippet, snippetsOf } from '../../src/jobs/ingest.js'
import { resolveConfig } from '../../src/config.js'
import { signLicense } from '../../src/license/format.js'
import { installLicense } from '../../src/license/state.js'
import { openRuntime } from '../../src/runtime.js'
import { codeListOf } from '../../src/index/render.js'
import type { Library } from '../../src/store/libraries.js'
import type { NewSnippet } from '../../src/store/snippets.js'
import type { ImportChildReport } from './import-child.js'
import { markdownTable, row, seconds, type Row } from './report.js'
import { PROJECT_ROOT, siblingModule, WORK_DIR } from './paths.js'
import { childPids, currentRss, kernelPeakRss, resetPeakRss } from './rss.js'
import { freePort } from './servers.js'


const MB = 1024 * 1024
/** The export maximum, and one library as large as an import of 100 MB leaves room for. */
const SPREAD = { libraries: 50, bytes: 100 * MB }
// The estimate that stops generation runs about a tenth under the JSON: 78 MB of it make 86 MB.
const ONE_LIBRARY = { libraries: 1, bytes: 78 * MB }

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

/** `count` libraries of real docs text, cycling through the documents until `targetBytes` of JSON. */
function generatePayload(targetBytes: number, count: number): { libraries: ImportLibrary[]; bytes: number; snippets: number } {
  const documents = realDocs(path.resolve('node_modules'))
  if (documents.length === 0) throw new Error('no README or docs markdown under node_modules; run npm install first')
  // Each document is parsed once; later uses only revise its snippets.
  const parsed = documents.map((doc) => snippetsOf([doc], (file, anchor) => `${file}#${anchor}`).filter((s) => s.body.length <= MAX_SNIPPET_CHARS))
  const perLibrary = targetBytes / count
  const libraries: ImportLibrary[] = []
  let cursor = 0
  let bytes = 0
  let snippets = 0
  for (let i = 0; i < count; i++) {
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
  libraries: number
  jsonBytes: number
  snippets: number
}

/** The bundle of `libraries` libraries for `targetBytes`, generated once and kept under bench/.work/ for later runs. */
async function ensureBundle({ bytes: targetBytes, libraries }: { bytes: number; libraries: number }): Promise<{ file: string; marker: BundleMarker }> {
  const file = path.join(WORK_DIR, `import-bundle-${libraries === SPREAD.libraries ? '' : `${libraries}-`}${Math.round(targetBytes / MB)}mb.zip`)
  const markerFile = `${file}.json`
  try {
    const marker = JSON.parse(fs.readFileSync(markerFile, 'utf8')) as BundleMarker
    if (marker.targetBytes === targetBytes && marker.libraries === libraries && fs.existsSync(file)) return { file, marker }
  } catch {
    // No marker: an interrupted or first build, made again below.
  }
  fs.mkdirSync(WORK_DIR, { recursive: true })
  const generated = generatePayload(targetBytes, libraries)
  await writeBundle(file, generated.libraries)
  const marker: BundleMarker = { targetBytes, libraries: generated.libraries.length, jsonBytes: generated.bytes, snippets: generated.snippets }
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
    await readBundle(bundle, path.join(path.dirname(file), 'entries'), (entryFile) => {
      const raw = JSON.parse(fs.readFileSync(entryFile, 'utf8')) as unknown
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

/** What one import measured, by either path. */
interface Measured {
  queuedMs: number
  searchableMs: number
  /** Peak resident set above idle of the process that read the import, once queued. */
  stagingAboveIdle: number | null
  /** The same with the import jobs: in that process for `lectern import`, in the job process over HTTP. */
  jobsAboveIdle: number | null
  jobsWhere: string
}

const fromChild = (report: ImportChildReport): Measured => ({
  queuedMs: report.queuedMs,
  searchableMs: report.searchableMs,
  stagingAboveIdle: report.stagingPeakRss === null ? null : report.stagingPeakRss - report.idleRss,
  jobsAboveIdle: report.kernelPeakRss === null ? null : report.kernelPeakRss - report.idleRss,
  jobsWhere: 'in the same process',
})

/** The peak above idle against the size of the JSON it read: the issue's bound is twice that. */
function memoryRow(metric: string, aboveIdle: number | null, jsonBytes: number, bounded: boolean): Row {
  if (aboveIdle === null) return row(metric, 'n/a (no /proc)')
  const value = `${megabytes(aboveIdle)} (${(aboveIdle / jsonBytes).toFixed(2)}x the JSON)`
  return bounded ? row(metric, value, '< 2x the JSON', aboveIdle < 2 * jsonBytes) : row(metric, value)
}

function reportRows(what: string, input: string, jsonBytes: number, measured: Measured): Row[] {
  return [
    row(what, input),
    row(`${what}: to queued (read, validate, stage)`, seconds(measured.queuedMs)),
    row(`${what}: to searchable (hash embedder)`, seconds(measured.searchableMs)),
    memoryRow(`${what}: peak RSS above idle, to queued`, measured.stagingAboveIdle, jsonBytes, true),
    memoryRow(`${what}: peak RSS above idle of the import jobs (${measured.jobsWhere})`, measured.jobsAboveIdle, jsonBytes, false),
  ]
}

/**
 * Imports `file` over HTTP into a real `lectern serve` on `dataDir`, as a JSON body or a bundle
 * upload, and measures the serving process (reading and staging) and its job process (the jobs).
 */
async function importOverHttp(dataDir: string, file: string, licenseFile: string, publicKey: string): Promise<Measured> {
  const config = resolveConfig({ dataDir }).config
  const runtime = await openRuntime({ config: { ...config, license: { ...config.license, publicKey } } })
  let key: string
  try {
    await installLicense(runtime, fs.readFileSync(licenseFile, 'utf8'))
    key = (await runtime.store.keys.create('bench-import')).key
  } finally {
    await runtime.close()
  }
  const port = await freePort()
  const log = path.join(dataDir, 'serve.log')
  const out = fs.openSync(log, 'w')
  const server = spawn(process.execPath, ['bin/run.js', 'serve', '--workers', '1', '--data-dir', dataDir, '--port', String(port)], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, LECTERN_LICENSE_PUBLIC_KEY: publicKey, LECTERN_RATE_LIMIT_KEYED: '0' },
    stdio: ['ignore', out, out],
  })
  fs.closeSync(out)
  const base = `http://127.0.0.1:${port}`
  const headers = { authorization: `Bearer ${key}` }
  try {
    for (const deadline = Date.now() + 60_000; (await fetch(`${base}/api/ready`).catch(() => undefined))?.status !== 200; ) {
      if (server.exitCode !== null || Date.now() > deadline) throw new Error(`lectern serve did not become ready: ${fs.readFileSync(log, 'utf8').slice(-2000)}`)
      await sleep(100)
    }
    // The job process starts with the server; both settle before the idle figures are taken.
    await sleep(2000)
    const jobProcess = childPids(server.pid!)[0]
    const idle = { server: currentRss(server.pid!), jobs: currentRss(jobProcess) }
    resetPeakRss(server.pid!)
    resetPeakRss(jobProcess)
    const start = performance.now()
    const blob = await fs.openAsBlob(file)
    let body: Blob | FormData = blob
    if (file.endsWith('.zip')) {
      body = new FormData()
      body.append('bundleFile', blob, path.basename(file))
    }
    const res = await fetch(`${base}/api/import-libraries`, { method: 'POST', headers: file.endsWith('.zip') ? headers : { ...headers, 'content-type': 'application/json' }, body })
    const answer = (await res.json()) as { queued: string[]; skipped: unknown[]; message?: string }
    if (res.status !== 202 || answer.skipped.length > 0) throw new Error(`the import answered ${res.status}: ${JSON.stringify(answer).slice(0, 500)}`)
    const queuedMs = performance.now() - start
    const stagingPeak = kernelPeakRss(server.pid!)
    for (;;) {
      const status = (await (await fetch(`${base}/api/parse-status`, { headers })).json()) as { activeParses: Record<string, unknown>; recentFailures: Array<{ message: string }> }
      if (status.recentFailures.length > 0) throw new Error(`an import job failed: ${status.recentFailures[0].message}`)
      if (answer.queued.every((project) => !status.activeParses[project])) break
      await sleep(250)
    }
    const searchableMs = performance.now() - start
    const jobsPeak = kernelPeakRss(jobProcess)
    return {
      queuedMs,
      searchableMs,
      stagingAboveIdle: stagingPeak === null || idle.server === null ? null : stagingPeak - idle.server,
      jobsAboveIdle: jobsPeak === null || idle.jobs === null ? null : jobsPeak - idle.jobs,
      jobsWhere: 'in the job process',
    }
  } finally {
    const exited = once(server, 'exit')
    server.kill('SIGTERM')
    await exited
  }
}

export async function runImportBench(options: { targetBytes?: number } = {}): Promise<string> {
  const spread = { ...SPREAD, bytes: options.targetBytes ?? SPREAD.bytes }
  const many = await ensureBundle(spread)
  const one = await ensureBundle(ONE_LIBRARY)
  const scratch = path.join(WORK_DIR, `import-${process.pid}`)
  fs.rmSync(scratch, { recursive: true, force: true })
  fs.mkdirSync(scratch, { recursive: true })
  try {
    const payload = await writePayload(many.file, path.join(scratch, 'payload.json'))
    const onePayload = await writePayload(one.file, path.join(scratch, 'one-library.json'))
    const keys = generateKeyPairSync('ed25519')
    const now = Date.now()
    const license = signLicense({ customer: 'bench', edition: 'enterprise', offline: true, issuedAt: new Date(now).toISOString(), expiresAt: new Date(now + 86_400_000).toISOString(), licenseKeyId: 'lctl_bench000' }, keys.privateKey)
    const licenseFile = path.join(scratch, 'license.json')
    fs.writeFileSync(licenseFile, JSON.stringify(license))
    const publicKey = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString()
    const data = (name: string) => path.join(scratch, name)
    const zipSize = (file: string) => `${(fs.statSync(file).size / MB).toFixed(1)} MB zip`
    const bundleInput = (bundle: { file: string; marker: BundleMarker }) =>
      `${zipSize(bundle.file)}, ${(bundle.marker.jsonBytes / MB).toFixed(1)} MB JSON, ${bundle.marker.libraries} ${bundle.marker.libraries === 1 ? 'library' : 'libraries'}, ${bundle.marker.snippets.toLocaleString('en-US')} snippets`
    const payloadInput = (file: PayloadFile) => `${(file.bytes / MB).toFixed(1)} MB, ${file.libraries} ${file.libraries === 1 ? 'library' : 'libraries'}, ${file.snippets.toLocaleString('en-US')} snippets`
    const rows = [
      ...reportRows('lectern import, bundle', bundleInput(many), many.marker.jsonBytes, fromChild(await importInChild(data('bundle-data'), many.file, licenseFile, publicKey))),
      ...reportRows('lectern import, JSON payload', payloadInput(payload), payload.bytes, fromChild(await importInChild(data('payload-data'), payload.file, licenseFile, publicKey))),
      ...reportRows('lectern import, one-library JSON payload', payloadInput(onePayload), onePayload.bytes, fromChild(await importInChild(data('one-payload-data'), onePayload.file, licenseFile, publicKey))),
      ...reportRows('lectern import, one-library bundle', bundleInput(one), one.marker.jsonBytes, fromChild(await importInChild(data('one-bundle-data'), one.file, licenseFile, publicKey))),
      ...reportRows('HTTP, one-library JSON payload', payloadInput(onePayload), onePayload.bytes, await importOverHttp(data('http-payload-data'), onePayload.file, licenseFile, publicKey)),
      ...reportRows('HTTP, one-library bundle', bundleInput(one), one.marker.jsonBytes, await importOverHttp(data('http-bundle-data'), one.file, licenseFile, publicKey)),
    ]
    return `### Import of real docs, as bundles and JSON payloads, by the CLI and over HTTP\n\n${markdownTable(rows)}\n`
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/** `node dist/bench/perf/import.js [megabytes]`: the import figures alone (default 100 MB of JSON in the 50-library bundle). */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const target = Number(process.argv[2] ?? 100)
  console.log(await runImportBench({ targetBytes: target * MB }))
}
