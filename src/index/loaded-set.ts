/**
 * A live snippet set as the engine serves it: everything about its snippets that does not
 * depend on the question, computed once when the set is loaded, never per request: each
 * snippet's token count, its `txt` block and its JSON object (as text, without the per-answer
 * `rank` and `score`), and the set's lexical index.
 *
 * The lexical index is written to a file when the set is built (`writeLexicalFile`) and read
 * back here, so loading tokenizes nothing. The file is derived data: it carries a fingerprint
 * of the rows it was built from and a SHA-1 of its own contents, and one that is missing, not a
 * regular file, damaged or from other rows is rebuilt from the rows (SQLite stays the source of
 * truth) and written again, never a failure.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { LexicalIndex } from '../search/lexical-index.js'
import { renderSnippetJson, renderSnippetText, type RenderedSnippet } from '../search/render.js'
import { indexedTextOf } from '../search/terms.js'
import type { StoredSnippet } from '../store/snippets.js'

export interface LoadedSet {
  setPk: number
  lexical: LexicalIndex
  /** The set's snippets in index order (a lexical hit's `doc` is a position here). */
  snippets: RenderedSnippet[]
  /** Position of a snippet pk in `snippets`. */
  docOf: Map<number, number>
  /** What the set holds in memory, roughly: what the set cache is bounded by. */
  bytes: number
  /** How the lexical index was obtained, for logs and tests. */
  lexicalFrom: 'file' | 'rows'
}

type Row = Pick<StoredSnippet, 'pk' | 'kind' | 'title' | 'description' | 'breadcrumb' | 'pageTitle' | 'language' | 'body' | 'source' | 'tokens' | 'hash' | 'includes' | 'alsoAt'>

export interface LoadLog {
  warn(obj: object, msg: string): void
}

/** Loads a set from its rows and its lexical index file (rebuilt and rewritten when it does not match). */
export function loadSet(setPk: number, rows: readonly Row[], lexicalFile: string, log?: LoadLog): LoadedSet {
  const stamp = fingerprint(rows)
  let lexical = readLexicalFile(lexicalFile, stamp, rows.length, log)
  const lexicalFrom = lexical ? 'file' : 'rows'
  if (!lexical) {
    lexical = LexicalIndex.build(rows.map(indexedTextOf))
    try {
      writeIndexFile(lexicalFile, stamp, lexical)
    } catch (err) {
      // A full or read-only disk costs the next load a rebuild, not this answer.
      log?.warn({ setPk, err }, 'could not write the lexical index file; it is rebuilt at the next load')
    }
  }
  const txt = packTexts(rows.map(renderSnippetText))
  const json = packTexts(rows.map(renderSnippetJson))
  const snippets = rows.map(
    (row, i): RenderedSnippet => ({ pk: row.pk, kind: row.kind, title: row.title, tokens: row.tokens, txt: txt.views[i], json: json.views[i] }),
  )
  const docOf = new Map(rows.map((row, doc) => [row.pk, doc]))
  // The buffers, and per snippet its object, two views, its title and its map entry.
  const bytes = lexical.bytes + txt.bytes + json.bytes + rows.reduce((sum, row) => sum + 320 + row.title.length, 0)
  return { setPk, lexical, snippets, docOf, bytes, lexicalFrom }
}

/** Texts in one UTF-8 buffer outside the heap, and a view of each. */
function packTexts(texts: string[]): { views: Buffer[]; bytes: number } {
  const lengths = texts.map((text) => Buffer.byteLength(text))
  const buffer = Buffer.allocUnsafeSlow(lengths.reduce((sum, n) => sum + n, 0))
  let at = 0
  const views = texts.map((text, i) => {
    buffer.write(text, at)
    at += lengths[i]
    return buffer.subarray(at - lengths[i], at)
  })
  return { views, bytes: buffer.length }
}

/** Builds the lexical index of a set's rows and writes its file: done once, when the set is built. */
export function writeLexicalFile(file: string, rows: readonly Row[]): void {
  writeIndexFile(file, fingerprint(rows), LexicalIndex.build(rows.map(indexedTextOf)))
}

export function removeLexicalFile(file: string): void {
  fs.rmSync(file, { force: true })
}

/** Bytes before the index: the rows' fingerprint (8) and the SHA-1 of the index bytes (20). */
const HEADER_BYTES = 28

function writeIndexFile(file: string, stamp: number[], lexical: LexicalIndex): void {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  const body = lexical.toBytes()
  try {
    fs.writeFileSync(tmp, Buffer.concat([Buffer.from(Uint32Array.from(stamp).buffer), createHash('sha1').update(body).digest(), body]))
    fs.renameSync(tmp, file)
  } catch (err) {
    fs.rmSync(tmp, { force: true })
    throw err
  }
}

function readLexicalFile(file: string, stamp: number[], size: number, log?: LoadLog): LexicalIndex | undefined {
  let bytes: Buffer
  try {
    // Only a regular file is read: a FIFO or a device put there would block or never end.
    if (!fs.statSync(file).isFile()) {
      log?.warn({ file }, 'the lexical index file is not a regular file; rebuilding it')
      return undefined
    }
    bytes = fs.readFileSync(file)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log?.warn({ file, err }, 'could not read the lexical index file; rebuilding it')
    return undefined
  }
  if (bytes.length < HEADER_BYTES) {
    log?.warn({ file }, 'the lexical index file is truncated; rebuilding it')
    return undefined
  }
  if (bytes.readUInt32LE(0) !== stamp[0] || bytes.readUInt32LE(4) !== stamp[1]) {
    log?.warn({ file }, 'the lexical index file was built from other rows; rebuilding it')
    return undefined
  }
  const body = bytes.subarray(HEADER_BYTES)
  if (!createHash('sha1').update(body).digest().equals(bytes.subarray(8, HEADER_BYTES))) {
    log?.warn({ file }, 'the lexical index file is damaged; rebuilding it')
    return undefined
  }
  try {
    const lexical = LexicalIndex.fromBytes(body)
    if (lexical.size === size) return lexical
    log?.warn({ file }, 'the lexical index file has another snippet count; rebuilding it')
  } catch (err) {
    log?.warn({ file, err }, 'the lexical index file is damaged; rebuilding it')
  }
  return undefined
}

/**
 * Two 32-bit FNV-1a hashes over the rows' pks and content hashes, in index order: any added,
 * removed, reordered or changed row changes it.
 */
function fingerprint(rows: readonly Row[]): number[] {
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
