/**
 * The snippets of a loaded set as columns outside the JavaScript heap: their pks, kinds, token
 * counts and titles in typed arrays and buffers, their `txt` blocks and JSON objects as ranges of
 * the engine file. A request makes objects for the few snippets it answers with, the set none.
 *
 * Why not an object per snippet: with a million snippets loaded, a million objects (and their
 * buffer views and titles) on the heap made every garbage collection slower, minor ones
 * included, whatever the request did (bench/RESULTS.md, sixth session on issue 11).
 */
import type { RenderedSnippet } from './render.js'
import type { SnippetHead } from '../store/snippets.js'

/** Where a set's rendered texts are in its engine file: each snippet's end offset, and where each text starts. */
export interface RenderedTexts {
  bytes: Buffer
  txtEnds: Uint32Array
  txtAt: number
  jsonEnds: Uint32Array
  jsonAt: number
}

const KINDS = ['code', 'info'] as const satisfies ReadonlyArray<RenderedSnippet['kind']>

/**
 * A snippet's record: what a request reads of each candidate, in one 32-byte row (half a cache
 * line) rather than a column each, since a request's fifty candidates are scattered over the set
 * and each column would cost a cache miss of its own. Words: the pk (low and high 32 bits), its
 * token count, its kind, and where its `txt` block and JSON object start and end in the file.
 */
const RECORD = { pkLow: 0, pkHigh: 1, tokens: 2, kind: 3, txtFrom: 4, txtTo: 5, jsonFrom: 6, jsonTo: 7 } as const
const RECORD_WORDS = 8
const PK_HIGH = 2 ** 32

export class SetSnippets {
  private readonly records: Uint32Array
  private readonly bytes: Buffer
  private readonly titles: Buffer
  private readonly titleEnds: Uint32Array

  /** `heads` in pk order, as the set's rows are: a snippet's position is its document number. */
  constructor(heads: readonly SnippetHead[], texts: RenderedTexts) {
    const n = heads.length
    const { txtEnds, txtAt, jsonEnds, jsonAt } = texts
    this.bytes = texts.bytes
    this.records = new Uint32Array(n * RECORD_WORDS)
    this.titleEnds = new Uint32Array(n)
    let titleBytes = 0
    let previousPk = -1
    heads.forEach((head, doc) => {
      if (head.pk <= previousPk) throw new Error('snippet heads are not in pk order')
      previousPk = head.pk
      const at = doc * RECORD_WORDS
      const record = this.records
      record[at + RECORD.pkLow] = head.pk % PK_HIGH
      record[at + RECORD.pkHigh] = Math.floor(head.pk / PK_HIGH)
      record[at + RECORD.tokens] = head.tokens
      const kind = KINDS.indexOf(head.kind)
      if (kind === -1) throw new Error(`snippet ${head.pk} is of no known kind (${head.kind})`)
      record[at + RECORD.kind] = kind
      record[at + RECORD.txtFrom] = txtAt + (doc === 0 ? 0 : txtEnds[doc - 1])
      record[at + RECORD.txtTo] = txtAt + txtEnds[doc]
      record[at + RECORD.jsonFrom] = jsonAt + (doc === 0 ? 0 : jsonEnds[doc - 1])
      record[at + RECORD.jsonTo] = jsonAt + jsonEnds[doc]
      titleBytes += Buffer.byteLength(head.title)
      this.titleEnds[doc] = titleBytes
    })
    this.titles = Buffer.allocUnsafeSlow(titleBytes)
    heads.forEach((head, doc) => this.titles.write(head.title, doc === 0 ? 0 : this.titleEnds[doc - 1]))
  }

  get length(): number {
    return this.records.length / RECORD_WORDS
  }

  /** Bytes held beside the engine file's (which are counted with the file). */
  get ownBytes(): number {
    return this.records.byteLength + this.titles.byteLength + this.titleEnds.byteLength
  }

  pk(doc: number): number {
    const at = doc * RECORD_WORDS
    return this.records[at + RECORD.pkHigh] * PK_HIGH + this.records[at + RECORD.pkLow]
  }

  tokens(doc: number): number {
    return this.records[doc * RECORD_WORDS + RECORD.tokens]
  }

  /** The document number of a pk in this set, by binary search of the pks (ascending). */
  docOf(pk: number): number | undefined {
    let low = 0
    let high = this.length - 1
    while (low <= high) {
      const middle = (low + high) >>> 1
      const at = this.pk(middle)
      if (at === pk) return middle
      if (at < pk) low = middle + 1
      else high = middle - 1
    }
    return undefined
  }

  kind(doc: number): RenderedSnippet['kind'] {
    return KINDS[this.records[doc * RECORD_WORDS + RECORD.kind]]
  }

  title(doc: number): string {
    return this.titles.toString('utf8', doc === 0 ? 0 : this.titleEnds[doc - 1], this.titleEnds[doc])
  }

  /** The snippet as an answer holds it. */
  at(doc: number): RenderedSnippet {
    if (!Number.isInteger(doc) || doc < 0 || doc >= this.length) throw new RangeError(`no snippet ${doc} in a set of ${this.length}`)
    const { records, bytes } = this
    const at = doc * RECORD_WORDS
    const txt = bytes.subarray(records[at + RECORD.txtFrom], records[at + RECORD.txtTo])
    const json = bytes.subarray(records[at + RECORD.jsonFrom], records[at + RECORD.jsonTo])
    return new SnippetOfSet(this, doc, this.pk(doc), KINDS[records[at + RECORD.kind]], records[at + RECORD.tokens], txt, json)
  }

  /** Every snippet, in document order: for tests and tools, not requests. */
  all(): RenderedSnippet[] {
    return Array.from({ length: this.length }, (_, doc) => this.at(doc))
  }
}

/** A snippet of a loaded set, made for an answer; its title is decoded only when read (answers send `txt` or `json`). */
class SnippetOfSet implements RenderedSnippet {
  /** Private to the class, so that spreading or logging a snippet never carries its whole set. */
  readonly #set: SetSnippets

  constructor(
    set: SetSnippets,
    readonly doc: number,
    readonly pk: number,
    readonly kind: RenderedSnippet['kind'],
    readonly tokens: number,
    readonly txt: Buffer,
    readonly json: Buffer,
  ) {
    this.#set = set
  }

  get title(): string {
    return this.#set.title(this.doc)
  }
}
