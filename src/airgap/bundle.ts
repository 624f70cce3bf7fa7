/**
 * The dashboard bundle (`lectern-libraries.zip`): `manifest.json` then one
 * `libraries/<n>.json` per library, each an ImportLibrary. Reading treats the zip as hostile:
 * entries are inflated one at a time to a file (never the whole archive or an entry in memory)
 * and read from there a snippet at a time (payload-stream.ts), and a name
 * that is absolute or climbs out with `..`, a symlink, an entry over the size cap, a
 * compression ratio only a zip bomb has, a total over the uncompressed cap, a duplicate entry,
 * an entry whose bytes do not match the size its headers declare, a local header that disagrees
 * with the central directory, JSON nested too deep, holding `__proto__` or `constructor` keys, or
 * text that is not UTF-8 rejects the whole bundle before anything is stored.
 */
import fs from 'node:fs'
import { once } from 'node:events'
import path from 'node:path'
import yauzl from 'yauzl'
import yazl from 'yazl'
import { LecternError } from '../errors.js'
import { parseJsonBytes } from '../text/json-text.js'
import type { ImportLibrary } from './payload.js'

export const BUNDLE_FORMAT = 'lectern-libraries'
export const MANIFEST_ENTRY = 'manifest.json'
export const MAX_EXPORT_LIBRARIES = 50

export const BUNDLE_LIMITS = {
  /** Sum of all entries once inflated. */
  maxUncompressedBytes: 1024 * 1024 * 1024,
  /** One library's JSON once inflated (to a file, read a snippet at a time). */
  maxEntryBytes: 256 * 1024 * 1024,
  /** Docs JSON deflates 3-10x; a bomb inflates hundreds of times. */
  maxRatio: 100,
  /** Entries smaller than this are not judged by ratio (tiny repetitive files compress well). */
  ratioFloorBytes: 1024 * 1024,
}

export interface BundleManifest {
  format: typeof BUNDLE_FORMAT
  version: 1
  createdAt: string
  libraries: Array<{ project: string; file: string; codeSnippets: number; infoSnippets: number }>
}

/** The manifest is read in memory: 50 libraries take a few kilobytes. */
const MAX_MANIFEST_BYTES = 1024 * 1024
const ENTRY_NAME = /^libraries\/[A-Za-z0-9._-]{1,100}\.json$/
const S_IFMT = 0o170000
const S_IFLNK = 0o120000

const unsafe = (why: string) => new LecternError('validation_error', `The bundle was rejected: ${why}. Nothing was imported.`)

/**
 * The bundle of these libraries (at most 50) as a zip stream, for a file or an HTTP answer.
 * Each library's JSON is already in memory (exportLibrary builds it); the zip deflates as it is read.
 */
export function bundleStream(libraries: ImportLibrary[]): { stream: NodeJS.ReadableStream; manifest: BundleManifest } {
  if (libraries.length === 0) throw new LecternError('validation_error', 'Name at least one library to export.')
  if (libraries.length > MAX_EXPORT_LIBRARIES) {
    throw new LecternError('validation_error', `A bundle holds at most ${MAX_EXPORT_LIBRARIES} libraries; ${libraries.length} were selected. Export them in several bundles.`)
  }
  const zip = new yazl.ZipFile()
  const manifest: BundleManifest = { format: BUNDLE_FORMAT, version: 1, createdAt: new Date().toISOString(), libraries: [] }
  libraries.forEach((library, i) => {
    const name = `libraries/${String(i + 1).padStart(4, '0')}.json`
    manifest.libraries.push({ project: library.project, file: name, codeSnippets: library.codeSnippets.length, infoSnippets: library.infoSnippets.length })
  })
  zip.addBuffer(Buffer.from(JSON.stringify(manifest, null, 2)), MANIFEST_ENTRY)
  libraries.forEach((library, i) => zip.addBuffer(Buffer.from(JSON.stringify(library)), manifest.libraries[i].file))
  zip.end()
  return { stream: zip.outputStream, manifest }
}

/** Writes the bundle of these libraries (at most 50) to `file`. */
export async function writeBundle(file: string, libraries: ImportLibrary[]): Promise<BundleManifest> {
  const { stream, manifest } = bundleStream(libraries)
  const out = fs.createWriteStream(file)
  stream.pipe(out)
  await once(out, 'close')
  return manifest
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    // decodeStrings + validateFileName (yauzl's defaults) refuse absolute and `..` names.
    yauzl.open(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: true }, (err, zip) => {
      if (err) reject(unsafe(err.message.includes('absolute') || err.message.includes('relative') ? `unsafe entry name (${err.message})` : `not a readable zip (${err.message})`))
      else resolve(zip)
    })
  })
}

/** Entries one at a time; an 'error' of the zip (a bad name, a broken header) rejects the pending read. */
function entryReader(zip: yauzl.ZipFile): { next(): Promise<yauzl.Entry | undefined> } {
  let failure: Error | undefined
  let pending: { resolve(e: yauzl.Entry | undefined): void; reject(err: Error): void } | undefined
  const settle = (fn: (p: NonNullable<typeof pending>) => void) => {
    const p = pending
    pending = undefined
    if (p) fn(p)
  }
  zip.on('entry', (e: yauzl.Entry) => settle((p) => p.resolve(e)))
  zip.on('end', () => settle((p) => p.resolve(undefined)))
  zip.on('error', (err: Error) => {
    failure = unsafe(/absolute|relative|invalid characters/.test(err.message) ? `unsafe entry name (${err.message})` : err.message)
    settle((p) => p.reject(failure!))
  })
  return {
    next: () =>
      new Promise((resolve, reject) => {
        if (failure) return reject(failure)
        pending = { resolve, reject }
        zip.readEntry()
      }),
  }
}

/**
 * Inflates an entry to `sink` chunk by chunk (a file for a library, memory for the manifest),
 * counting the inflated bytes against the caps, for the headers could lie.
 */
async function inflateEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, budget: { left: number }, cap: number, sink: (chunk: Buffer) => Promise<void> | void): Promise<void> {
  const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
    zip.openReadStream(entry, (err, s) => (err ? reject(unsafe(`${entry.fileName} cannot be read (${err.message})`)) : resolve(s))),
  )
  let size = 0
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length
      budget.left -= chunk.length
      if (size > cap || budget.left < 0) {
        ;(stream as unknown as { destroy(): void }).destroy()
        throw unsafe(`${entry.fileName} inflates past the size cap (a zip bomb?)`)
      }
      await sink(chunk)
    }
  } catch (err) {
    // yauzl checks the bytes against the sizes the headers declare, and zlib the deflate stream.
    if (err instanceof LecternError) throw err
    throw unsafe(`${entry.fileName} is damaged: ${(err as Error).message}`)
  }
}

/** The manifest's JSON, read by the same rules as any JSON from outside (text/json-text.ts: UTF-8, nesting, no `__proto__`). */
async function readManifest(zip: yauzl.ZipFile, entry: yauzl.Entry, budget: { left: number }): Promise<BundleManifest> {
  const chunks: Buffer[] = []
  await inflateEntry(zip, entry, budget, MAX_MANIFEST_BYTES, (chunk) => {
    chunks.push(chunk)
  })
  let m: Partial<BundleManifest>
  try {
    m = parseJsonBytes(Buffer.concat(chunks), entry.fileName) as Partial<BundleManifest>
  } catch (err) {
    throw asRefusal(err)
  }
  if (m?.format !== BUNDLE_FORMAT || !Array.isArray(m.libraries)) throw unsafe(`manifest.json is not a ${BUNDLE_FORMAT} manifest`)
  return m as BundleManifest
}

/** Inflates a library entry to the file `to`. */
async function inflateToFile(zip: yauzl.ZipFile, entry: yauzl.Entry, budget: { left: number }, to: string): Promise<void> {
  const out = await fs.promises.open(to, 'w', 0o600)
  try {
    await inflateEntry(zip, entry, budget, BUNDLE_LIMITS.maxEntryBytes, async (chunk) => {
      await out.write(chunk)
    })
  } finally {
    await out.close()
  }
}

/** A refusal of an entry's JSON as the bundle's refusal: "The bundle was rejected: <why>. Nothing was imported." */
function asRefusal(err: unknown): unknown {
  if (err instanceof LecternError && err.code === 'validation_error' && !err.message.startsWith('The bundle was rejected')) return unsafe(err.message.replace(/\.( Nothing was imported\.)?$/, ''))
  return err
}

/**
 * The local header of an entry must agree with the central directory that yauzl reads: the same
 * name and the same sizes, or, when a data descriptor follows the data (general purpose bit 3;
 * yazl writes those), zero sizes in the header and the same sizes in the descriptor. A tool that
 * trusts one copy and not the other would read another file than Lectern checked.
 */
async function checkLocalHeader(file: fs.promises.FileHandle, entry: yauzl.Entry): Promise<void> {
  const header = Buffer.alloc(LOCAL_HEADER_BYTES + entry.fileNameLength)
  const { bytesRead } = await file.read(header, 0, header.length, entry.relativeOffsetOfLocalHeader)
  if (bytesRead < header.length || header.readUInt32LE(0) !== LOCAL_HEADER_SIGNATURE) throw unsafe(`${entry.fileName} has no valid local header`)
  const name = header.subarray(LOCAL_HEADER_BYTES).toString('utf8')
  if (header.readUInt16LE(26) !== entry.fileNameLength || name !== entry.fileName) throw unsafe(`${entry.fileName} is named ${JSON.stringify(name)} in its local header`)
  const sizes = { compressed: header.readUInt32LE(18), uncompressed: header.readUInt32LE(22) }
  const sameSizes = (declared: typeof sizes) => declared.compressed === entry.compressedSize && declared.uncompressed === entry.uncompressedSize
  if ((header.readUInt16LE(6) & DATA_DESCRIPTOR_FLAG) === 0) {
    if (!sameSizes(sizes)) throw unsafe(`${entry.fileName} declares other sizes in its local header than in the central directory`)
    return
  }
  if (sizes.compressed !== 0 || sizes.uncompressed !== 0) {
    if (!sameSizes(sizes)) throw unsafe(`${entry.fileName} declares other sizes in its local header than in the central directory`)
  }
  // The data descriptor after the data (its signature is optional) repeats the sizes.
  const dataStart = entry.relativeOffsetOfLocalHeader + LOCAL_HEADER_BYTES + header.readUInt16LE(26) + header.readUInt16LE(28)
  const descriptor = Buffer.alloc(16)
  const read = await file.read(descriptor, 0, descriptor.length, dataStart + entry.compressedSize)
  const at = descriptor.readUInt32LE(0) === DATA_DESCRIPTOR_SIGNATURE ? 8 : 4
  if (read.bytesRead < at + 8 || !sameSizes({ compressed: descriptor.readUInt32LE(at), uncompressed: descriptor.readUInt32LE(at + 4) })) {
    throw unsafe(`${entry.fileName} declares other sizes in its data descriptor than in the central directory`)
  }
}

const LOCAL_HEADER_SIGNATURE = 0x04034b50
const DATA_DESCRIPTOR_SIGNATURE = 0x08074b50
const DATA_DESCRIPTOR_FLAG = 0x8
const LOCAL_HEADER_BYTES = 30

function checkEntry(entry: yauzl.Entry, seen: Set<string>, declared: { total: number }): void {
  const name = entry.fileName
  if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) throw unsafe(`${name} is a symbolic link`)
  if (name.startsWith('/') || name.split('/').includes('..')) throw unsafe(`${name} is not a relative path inside the bundle`)
  if (name !== MANIFEST_ENTRY && !ENTRY_NAME.test(name)) throw unsafe(`unexpected entry ${JSON.stringify(name)}; a bundle holds manifest.json and libraries/*.json`)
  if (seen.has(name)) throw unsafe(`${name} appears twice`)
  seen.add(name)
  if (entry.uncompressedSize > BUNDLE_LIMITS.maxEntryBytes) throw unsafe(`${name} inflates to ${entry.uncompressedSize} bytes, over the cap of ${BUNDLE_LIMITS.maxEntryBytes}`)
  declared.total += entry.uncompressedSize
  if (declared.total > BUNDLE_LIMITS.maxUncompressedBytes) throw unsafe(`its entries inflate to more than ${BUNDLE_LIMITS.maxUncompressedBytes} bytes`)
  if (entry.uncompressedSize >= BUNDLE_LIMITS.ratioFloorBytes && entry.uncompressedSize > BUNDLE_LIMITS.maxRatio * Math.max(entry.compressedSize, 1)) {
    throw unsafe(`${name} has a compression ratio over ${BUNDLE_LIMITS.maxRatio}:1 (a zip bomb?)`)
  }
}

/**
 * Reads the bundle at `file`, inflating each library entry in turn to a file in `scratch` and
 * handing that file to `onLibrary`, in order; the file is removed after. Throws
 * `validation_error` for anything unsafe or malformed, and turns the `validation_error`s of
 * `onLibrary` (reading the entry's JSON) into the bundle's refusal.
 */
export async function readBundle(file: string, scratch: string, onLibrary: (entryFile: string, entry: string) => Promise<void> | void): Promise<BundleManifest> {
  const zip = await openZip(file)
  const entries = entryReader(zip)
  const seen = new Set<string>()
  const declared = { total: 0 }
  const budget = { left: BUNDLE_LIMITS.maxUncompressedBytes }
  let manifest: BundleManifest | undefined
  let count = 0
  let headers: fs.promises.FileHandle | undefined
  try {
    headers = await fs.promises.open(file)
    for (;;) {
      const entry = await entries.next()
      if (!entry) break
      await checkLocalHeader(headers, entry)
      if (entry.fileName.endsWith('/')) {
        if (entry.fileName !== 'libraries/') throw unsafe(`unexpected directory ${JSON.stringify(entry.fileName)}`)
        continue
      }
      checkEntry(entry, seen, declared)
      if (entry.fileName === MANIFEST_ENTRY) {
        manifest = await readManifest(zip, entry, budget)
        continue
      }
      if (!manifest) throw unsafe('manifest.json must come first')
      count++
      fs.mkdirSync(scratch, { recursive: true, mode: 0o700 })
      const entryFile = path.join(scratch, `entry-${count}.json`)
      try {
        await inflateToFile(zip, entry, budget, entryFile)
        await onLibrary(entryFile, entry.fileName)
      } catch (err) {
        throw asRefusal(err)
      } finally {
        fs.rmSync(entryFile, { force: true })
      }
    }
  } finally {
    zip.close()
    await headers?.close()
  }
  if (!manifest) throw unsafe('it has no manifest.json; is it a Lectern export?')
  if (count !== manifest.libraries.length) throw unsafe(`the manifest lists ${manifest.libraries.length} libraries but the bundle holds ${count}`)
  return manifest
}
