/**
 * A live snippet set as the engine serves it: everything about its snippets that does not
 * depend on the question, computed once when the set is built, never per request: each
 * snippet's token count, its `txt` block and its JSON object (as text, without the per-answer
 * `rank` and `score`), the set's lexical index, and for a hash-embedded set its vectors.
 *
 * All but the token counts and titles (which the rows hold) are written to the set's engine file,
 * with which snippets share a section of a page (set-sections.ts),
 * when the set is built (`writeEngineFile`), so loading a set reads one file and the rows' heads,
 * and neither tokenizes nor renders. The file is derived data: it carries a fingerprint of the
 * rows it was built from and a CRC-32 of its contents, and one that is missing, not a regular
 * file, damaged or from other rows is rebuilt from the rows (SQLite stays the source of truth)
 * and written again, never a failure.
 */
import fs from 'node:fs'
import path from 'node:path'
import { threadId } from 'node:worker_threads'
import zlib from 'node:zlib'
import { HashEmbedder } from '../embed/hash.js'
import { LexicalIndex } from './lexical-index.js'
import { renderSnippetJson, renderSnippetText } from './render.js'
import { quantizeInto, SetVectors } from './set-vectors.js'
import { indexedTextOf } from './indexed-text.js'
import type { SnippetHead, SnippetSet, StoredSnippet } from '../store/snippets.js'
import { embedText } from './embed-text.js'
import { SetSections, sectionNumbers } from './set-sections.js'
import { SetSnippets } from './set-snippets.js'
import type { LoadedVectorIndex } from './vector-index.js'

export interface LoadedSet {
  setPk: number
  lexical: LexicalIndex
  /** The set's snippets in index order (a lexical hit's `doc` is a position here). */
  snippets: SetSnippets
  /** Which snippets share a section of a page, by position as `snippets`. */
  sections: SetSections
  /** A hash-embedded set's vectors, in index order; undefined for other embedders. */
  vectors: SetVectors | undefined
  /**
   * Another embedder's vector index, loaded with the set on its first vector search
   * (SetEngine.vectorIndex): undefined until then, null while it cannot be used.
   */
  vectorIndex?: LoadedVectorIndex | null
  /** What the set holds in memory, roughly: what the set cache is bounded by. */
  bytes: number
  /** Whether the engine file was read as it was, or rebuilt from the rows; for logs and tests. */
  builtFrom: 'file' | 'rows'
}

type Row = Pick<StoredSnippet, 'pk' | 'kind' | 'title' | 'description' | 'breadcrumb' | 'pageTitle' | 'language' | 'body' | 'source' | 'tokens' | 'hash' | 'includes' | 'alsoAt'>

export interface LoadLog {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

/**
 * What a set's engine file holds beyond its rows: for a set embedded by the hash embedder, its
 * vectors (`hashDimensions` > 0), which the file can hold because that embedder is local and
 * deterministic; none (0) for other embedders, whose vectors only the vector index holds.
 */
export interface EngineFileKind {
  hashDimensions: number
}

export const engineFileKind = (set: Pick<SnippetSet, 'embedProvider' | 'dimensions'>): EngineFileKind => ({
  hashDimensions: set.embedProvider === 'hash' ? set.dimensions : 0,
})

/** Whether the set has a vector index file: every set but a hash-embedded one, whose engine file holds its vectors. */
export const hasVectorIndex = (set: Pick<SnippetSet, 'embedProvider' | 'dimensions'>): boolean => engineFileKind(set).hashDimensions === 0

/**
 * Loads a set from its rows' heads (pk order) and an engine file's bytes built elsewhere
 * (rebuild-thread.ts); undefined when they do not match the heads (the rows changed meanwhile).
 */
export function loadSetFromBytes(setPk: number, heads: readonly SnippetHead[], kind: EngineFileKind, bytes: Buffer): LoadedSet | undefined {
  if (bytes.length < HEADER_BYTES) return undefined
  const header = bytes.subarray(0, HEADER_BYTES)
  if (checkHeader(header, fingerprint(heads), heads.length, kind, bytes.length) !== undefined) return undefined
  if (checksum(bytes) !== header.readUInt32LE(HEADER.crc * 4)) return undefined
  return decode(setPk, heads, bytes, 'rows')
}

/** A set's engine file as bytes, built from its rows (pk order), embedding a hash-embedded set's vectors again. */
export function encodeEngineFile(rows: readonly Row[], kind: EngineFileKind): Buffer {
  return encode(fingerprint(rows), rows, kind)
}

/** Loads a set from its rows' heads (pk order) and its engine file; undefined when the file does not match them. */
export function loadSetFromFile(setPk: number, heads: readonly SnippetHead[], kind: EngineFileKind, file: string, log?: LoadLog): LoadedSet | undefined {
  const read = readEngineFile(file, fingerprint(heads), heads.length, kind, log)
  if (!read) return undefined
  try {
    return decode(setPk, heads, read, 'file')
  } catch (err) {
    log?.warn({ file, err }, 'the engine file does not read back; rebuilding it')
    return undefined
  }
}

/**
 * Loads a set from its rows' heads (pk order) and its engine file; when the file does not match,
 * from `rowsOf()` (the full rows, same order), writing the file again.
 */
export async function loadSet(setPk: number, heads: readonly SnippetHead[], kind: EngineFileKind, file: string, rowsOf: () => Promise<readonly Row[]>, log?: LoadLog): Promise<LoadedSet> {
  const fromFile = loadSetFromFile(setPk, heads, kind, file, log)
  if (fromFile) return fromFile
  const bytes = encode(fingerprint(heads), await rowsOf(), kind)
  try {
    writeFileAtomically(file, bytes)
  } catch (err) {
    // A full or read-only disk costs the next load a rebuild, not this answer.
    log?.warn({ setPk, file, err }, 'could not write the engine file; it is rebuilt at the next load')
  }
  return decode(setPk, heads, bytes, 'rows')
}

/**
 * Builds a set's engine file from its rows (pk order): when the set is built or re-embedded, and
 * when its file no longer matches its rows (rebuild-thread.ts). A hash-embedded set's vectors are
 * taken from `vectors` (by pk) when given, else embedded again.
 */
export function writeEngineFile(file: string, rows: readonly Row[], kind: EngineFileKind, vectors?: ReadonlyMap<number, Float32Array>): void {
  writeFileAtomically(file, encodeParts(fingerprint(rows), rows, kind, vectors))
}

/** As writeEngineFile (a hash-embedded set's vectors embedded again), awaiting `pace` between steps of ENCODE_STEP rows: a job's (src/jobs/pace.ts). */
export async function writeEngineFilePaced(file: string, rows: readonly Row[], kind: EngineFileKind, pace: () => Promise<void>): Promise<void> {
  const steps = encoding(fingerprint(rows), rows, kind)
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return writeFileAtomically(file, step.value)
    await pace()
  }
}

export function removeEngineFile(file: string): void {
  fs.rmSync(file, { force: true })
}

/**
 * The file: a header of 32-bit little-endian words, then the body: the lexical index
 * (`LexicalIndex.toBytes`, padded to a multiple of 4 bytes), each snippet's end offset in the
 * `txt` text and in the JSON text, each snippet's section number (set-sections.ts), the two texts (UTF-8, one snippet after another), then for a
 * hash-embedded set its vectors (`dimensions` signed bytes a snippet, set-vectors.ts).
 */
const MAGIC = 0x5445_534c // "LSET"
/** 3: section numbers added. A file of another format is rebuilt from the rows at its set's first load. */
const FORMAT = 3
const HEADER = { magic: 0, format: 1, stamp: 2, crc: 4, count: 5, lexicalBytes: 6, txtBytes: 7, jsonBytes: 8, dimensions: 9 } as const
const HEADER_BYTES = 10 * 4

const padded = (n: number) => (n + 3) & ~3

/** Where each section of a file with this header starts, and where the file ends. */
function layoutOf(header: Buffer) {
  const word = (i: number) => header.readUInt32LE(i * 4)
  const count = word(HEADER.count)
  const dimensions = word(HEADER.dimensions)
  const lexicalBytes = word(HEADER.lexicalBytes)
  const txtEndsAt = HEADER_BYTES + padded(lexicalBytes)
  const jsonEndsAt = txtEndsAt + count * 4
  const sectionsAt = jsonEndsAt + count * 4
  const txtAt = sectionsAt + count * 4
  const jsonAt = txtAt + word(HEADER.txtBytes)
  const vectorsAt = jsonAt + word(HEADER.jsonBytes)
  return { count, dimensions, lexicalBytes, txtEndsAt, jsonEndsAt, sectionsAt, txtAt, jsonAt, vectorsAt, end: vectorsAt + count * dimensions }
}

function encodeParts(stamp: readonly number[], rows: readonly Row[], kind: EngineFileKind, known?: ReadonlyMap<number, Float32Array>): Buffer[] {
  const steps = encoding(stamp, rows, kind, known)
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value
}

function encode(stamp: readonly number[], rows: readonly Row[], kind: EngineFileKind, known?: ReadonlyMap<number, Float32Array>): Buffer {
  return Buffer.concat(encodeParts(stamp, rows, kind, known))
}

/** Rows tokenized or rendered in one step of `encoding`. */
const ENCODE_STEP = 512

/**
 * The file's bytes in parts, header first, built in steps (each `yield`) that a paced job can
 * pause between. Parts, so that a writer need not copy a large set's texts into one buffer.
 */
function* encoding(stamp: readonly number[], rows: readonly Row[], kind: EngineFileKind, known?: ReadonlyMap<number, Float32Array>): Generator<void, Buffer[]> {
  const terms: string[][][] = []
  for (const row of rows) {
    terms.push(LexicalIndex.termsOf(indexedTextOf(row)))
    if (terms.length % ENCODE_STEP === 0) yield
  }
  const lexicalBytes = LexicalIndex.bytesOfTerms(terms)
  yield
  const txt: Buffer[] = []
  const json: Buffer[] = []
  for (const row of rows) {
    txt.push(Buffer.from(renderSnippetText(row)))
    json.push(Buffer.from(renderSnippetJson(row)))
    if (txt.length % ENCODE_STEP === 0) yield
  }
  const ends = (texts: Buffer[]) => {
    let at = 0
    return Uint32Array.from(texts, (text) => (at += text.length))
  }
  const txtEnds = ends(txt)
  const jsonEnds = ends(json)
  const header = new Uint32Array(HEADER_BYTES / 4)
  header[HEADER.magic] = MAGIC
  header[HEADER.format] = FORMAT
  header.set(stamp, HEADER.stamp)
  header[HEADER.count] = rows.length
  header[HEADER.lexicalBytes] = lexicalBytes.length
  header[HEADER.txtBytes] = txtEnds.at(-1) ?? 0
  header[HEADER.jsonBytes] = jsonEnds.at(-1) ?? 0
  header[HEADER.dimensions] = kind.hashDimensions
  const vectors = new Int8Array(rows.length * kind.hashDimensions)
  if (kind.hashDimensions > 0) {
    const embedder = new HashEmbedder({ dimensions: kind.hashDimensions })
    for (const [doc, row] of rows.entries()) {
      quantizeInto(known?.get(row.pk) ?? embedder.embedOne(embedText(row)), vectors, doc)
      if ((doc + 1) % ENCODE_STEP === 0) yield
    }
  }
  const asBytes = (words: Uint32Array) => Buffer.from(words.buffer, words.byteOffset, words.byteLength)
  const headerBytes = asBytes(header)
  const parts = [
    headerBytes,
    lexicalBytes,
    Buffer.alloc(padded(lexicalBytes.length) - lexicalBytes.length),
    asBytes(txtEnds),
    asBytes(jsonEnds),
    asBytes(sectionNumbers(rows)),
    ...txt,
    ...json,
    Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength),
  ]
  headerBytes.writeUInt32LE(checksum(parts), HEADER.crc * 4)
  return parts
}

/**
 * What a loaded set keeps on the JavaScript heap, counted in its bytes: a few objects and
 * typed-array headers, whatever its size; its snippets, index and vectors are outside the heap
 * (set-snippets.ts, lexical-index.ts).
 */
const HEAP_BYTES_PER_SET = 4096

/**
 * The set as the engine holds it; `bytes` is a file checked by `readEngineFile` or just encoded.
 * Throws when the lexical index inside does not read back.
 */
function decode(setPk: number, heads: readonly SnippetHead[], bytes: Buffer, builtFrom: LoadedSet['builtFrom']): LoadedSet {
  const { count, dimensions, lexicalBytes, txtEndsAt, jsonEndsAt, sectionsAt, txtAt, jsonAt, vectorsAt } = layoutOf(bytes)
  const lexical = LexicalIndex.fromBytes(bytes.subarray(HEADER_BYTES, HEADER_BYTES + lexicalBytes))
  if (lexical.size !== count || count !== heads.length) throw new Error(`the lexical index has ${lexical.size} snippets, the set ${heads.length}`)
  const words = (at: number) => (bytes.byteOffset % 4 === 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset + at, count) : Uint32Array.from({ length: count }, (_, i) => bytes.readUInt32LE(at + i * 4)))
  const snippets = new SetSnippets(heads, { bytes, txtEnds: words(txtEndsAt), txtAt, jsonEnds: words(jsonEndsAt), jsonAt })
  const sections = new SetSections(words(sectionsAt), (doc) => snippets.kind(doc) === 'code')
  const vectors = dimensions > 0 ? new SetVectors(new Int8Array(bytes.buffer, bytes.byteOffset + vectorsAt, count * dimensions), dimensions) : undefined
  const held = bytes.length + lexical.bytes + snippets.ownBytes + sections.ownBytes + (vectors?.ownBytes ?? 0) + HEAP_BYTES_PER_SET
  return { setPk, lexical, snippets, sections, vectors, bytes: held, builtFrom }
}

/** Writes `bytes`, whole or in parts one after another, to `file` through a temporary file and a rename. */
export function writeFileAtomically(file: string, bytes: Buffer | readonly Buffer[]): void {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  // The process and its thread: the serving, job and rebuild threads of one process write here.
  const tmp = `${file}.${process.pid}-${threadId}.tmp`
  try {
    if (Buffer.isBuffer(bytes)) fs.writeFileSync(tmp, bytes)
    else writeParts(tmp, bytes)
    fs.renameSync(tmp, file)
  } catch (err) {
    fs.rmSync(tmp, { force: true })
    throw err
  }
}

/** Many small parts (a set's texts, snippet by snippet) go to the file a few megabytes at a time. */
const WRITE_BATCH_BYTES = 4 * 1024 * 1024

function writeParts(file: string, parts: readonly Buffer[]): void {
  const fd = fs.openSync(file, 'w')
  try {
    for (let i = 0; i < parts.length; ) {
      const batch: Buffer[] = []
      for (let bytes = 0; i < parts.length && (batch.length === 0 || bytes + parts[i].length <= WRITE_BATCH_BYTES); i++) {
        batch.push(parts[i])
        bytes += parts[i].length
      }
      const block = batch.length === 1 ? batch[0] : Buffer.concat(batch)
      for (let at = 0; at < block.length; ) at += fs.writeSync(fd, block, at)
    }
  } finally {
    fs.closeSync(fd)
  }
}

/** The file's bytes when it is this set's engine file, intact; else undefined (with the reason logged). */
function readEngineFile(file: string, stamp: readonly number[], count: number, kind: EngineFileKind, log?: LoadLog): Buffer | undefined {
  let fd: number
  try {
    // Non-blocking, so that opening a FIFO put there returns at once; checked on the descriptor
    // itself, so nothing swapped in after the check is read.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log?.warn({ file, err }, 'could not read the engine file; rebuilding it')
    return undefined
  }
  try {
    const size = fs.fstatSync(fd)
    if (!size.isFile()) {
      log?.warn({ file }, 'the engine file is not a regular file; rebuilding it')
      return undefined
    }
    // The header says how long the file must be: a file of any other size is never read whole.
    const header = Buffer.alloc(HEADER_BYTES)
    if (size.size < HEADER_BYTES || fs.readSync(fd, header, 0, HEADER_BYTES, 0) < HEADER_BYTES) {
      log?.warn({ file }, 'the engine file is truncated; rebuilding it')
      return undefined
    }
    const problem = checkHeader(header, stamp, count, kind, size.size)
    if (problem) {
      log?.warn({ file }, `the engine file ${problem}; rebuilding it`)
      return undefined
    }
    const bytes = Buffer.allocUnsafeSlow(size.size)
    header.copy(bytes)
    if (fs.readSync(fd, bytes, HEADER_BYTES, size.size - HEADER_BYTES, HEADER_BYTES) < size.size - HEADER_BYTES) {
      log?.warn({ file }, 'the engine file is truncated; rebuilding it')
      return undefined
    }
    if (checksum(bytes) !== header.readUInt32LE(HEADER.crc * 4)) {
      log?.warn({ file }, 'the engine file is damaged; rebuilding it')
      return undefined
    }
    return bytes
  } catch (err) {
    log?.warn({ file, err }, 'could not read the engine file; rebuilding it')
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}

function checkHeader(header: Buffer, stamp: readonly number[], count: number, kind: EngineFileKind, fileBytes: number): string | undefined {
  const word = (i: number) => header.readUInt32LE(i * 4)
  if (word(HEADER.magic) !== MAGIC || word(HEADER.format) !== FORMAT) return 'is not an engine file of this version'
  if (word(HEADER.stamp) !== stamp[0] || word(HEADER.stamp + 1) !== stamp[1]) return 'was built from other rows'
  if (word(HEADER.count) !== count) return 'has another snippet count'
  if (word(HEADER.dimensions) !== kind.hashDimensions) return 'was built for another embedder'
  return fileBytes === layoutOf(header).end ? undefined : 'has the wrong length'
}

/**
 * CRC-32 of the whole file but its own word: the header's sizes are covered as well as the body.
 * The file comes whole or in parts, the first holding at least the header.
 */
function checksum(file: Buffer | readonly Buffer[]): number {
  const [first, ...rest] = Buffer.isBuffer(file) ? [file] : file
  const crcAt = HEADER.crc * 4
  let crc = zlib.crc32(first.subarray(crcAt + 4), zlib.crc32(first.subarray(0, crcAt)))
  // An empty part is skipped: zlib.crc32 of an empty view of an empty ArrayBuffer answers 0, not the CRC it was given.
  for (const part of rest) if (part.length > 0) crc = zlib.crc32(part, crc)
  return crc
}

/**
 * Two 32-bit FNV-1a hashes over the rows' pks and content hashes, in index order: any added,
 * removed, reordered or changed row changes it.
 */
function fingerprint(rows: ReadonlyArray<Pick<SnippetHead, 'pk' | 'hash'>>): number[] {
  let a = 0x811c9dc5
  let b = 0x01000193
  for (const row of rows) {
    const text = `${row.pk}:${row.hash};`
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      a = Math.imul(a ^ c, 0x01000193)
      b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15)
    }
  }
  return [a >>> 0, b >>> 0]
}
