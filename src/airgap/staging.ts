/**
 * A library's staged file, between the import request that validated it and the `import` job
 * that ingests it: one JSON line of the library's fields and snippet count, then one line per
 * snippet (a NewSnippet) in the order it will be served.
 *
 * Staging is written while the payload is read, so a library is never held whole: each valid
 * snippet is appended to `<n>.lines` in the payload's order. When the library ends valid, `<n>.json`
 * is written, the fields and then those lines in serving order (the exporter's ordinal ids), and
 * `<n>.lines` is removed. An invalid library leaves nothing.
 */
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { z } from 'zod'
import { LecternError } from '../errors.js'
import { LIMITS } from '../index/build.js'
import type { NewSnippet } from '../store/snippets.js'
import { checkLibraryFields, checkSnippet, projectOf, type SnippetList, type ValidLibrary } from './payload.js'
import type { LibraryVisitor } from './payload-stream.js'

export type StagedResult =
  | { ok: true; library: ValidLibrary; file: string; snippets: number }
  | { ok: false; project: string; reason: string }

/** Bytes of lines gathered before one write, and read at a time when the lines are put in order. */
const CHUNK_BYTES = 1024 * 1024

/**
 * Appends lines to a file through a buffer of CHUNK_BYTES; knows where the next line starts.
 * Lines are encoded into the buffer at once: strings kept pending would outlive the young
 * generation's collections and be promoted, a megabyte of garbage for the old generation every
 * few milliseconds of staging.
 */
class LineWriter {
  private readonly fd: number
  private readonly buffer = Buffer.allocUnsafe(CHUNK_BYTES)
  private used = 0
  private closed = false
  /** Bytes written and buffered: where the next line starts. */
  size = 0

  constructor(readonly file: string) {
    this.fd = fs.openSync(file, 'w', 0o600)
  }

  write(line: string): void {
    const bytes = Buffer.byteLength(line) + 1
    if (this.used + bytes > this.buffer.length) this.flush()
    if (bytes > this.buffer.length) fs.writeSync(this.fd, `${line}\n`)
    else {
      this.buffer.write(line, this.used)
      this.buffer[this.used + bytes - 1] = 0x0a
      this.used += bytes
    }
    this.size += bytes
  }

  writeBytes(bytes: Buffer): void {
    this.flush()
    fs.writeSync(this.fd, bytes)
    this.size += bytes.length
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.flush()
    fs.closeSync(this.fd)
  }

  private flush(): void {
    if (this.used === 0) return
    fs.writeSync(this.fd, this.buffer, 0, this.used)
    this.used = 0
  }
}

/** Stages one element of `libraries` as payload-stream.ts reads it; `onEnd` gets the outcome. */
export class StagedLibrary implements LibraryVisitor {
  private readonly fields: Record<string, unknown> = {}
  private notObject: { value: unknown } | undefined
  /** The first snippet found invalid: the library's reason, unless its fields are invalid too. */
  private failure: string | undefined
  private count = 0
  private lines: LineWriter | undefined
  /** Where each staged line starts in `<n>.lines`, the ordinal its snippet's id gives it, and whether it is code. */
  private readonly starts: number[] = []
  private readonly orders: number[] = []
  private readonly isCode: boolean[] = []

  constructor(
    private readonly file: string,
    private readonly onEnd: (result: StagedResult) => void,
  ) {}

  notAnObject(value: unknown): void {
    this.notObject = { value }
  }

  field(key: string, value: unknown): void {
    this.fields[key] = value
  }

  list(name: SnippetList): void {
    this.fields[name] = []
  }

  snippet(list: SnippetList, index: number, raw: unknown): void {
    this.count++
    if (this.failure !== undefined || this.count > LIMITS.maxSnippets) return
    const checked = checkSnippet(list, index, raw)
    if (!checked.ok) {
      this.failure = checked.reason
      return
    }
    this.lines ??= new LineWriter(this.linesFile)
    this.starts.push(this.lines.size)
    this.orders.push(checked.order)
    this.isCode.push(list === 'codeSnippets')
    this.lines.write(JSON.stringify(checked.snippet))
  }

  end(): void {
    try {
      this.onEnd(this.finish())
    } finally {
      this.removeLines()
    }
  }

  private get linesFile(): string {
    return this.file.replace(/\.json$/, '.lines')
  }

  private finish(): StagedResult {
    if (this.notObject) {
      const checked = checkLibraryFields(this.notObject.value, 0)
      return { ok: false, project: projectOf(this.notObject.value), reason: checked.ok ? 'invalid: not an object' : checked.reason }
    }
    const project = projectOf(this.fields)
    const checked = checkLibraryFields(this.fields, this.count)
    if (!checked.ok) return { ok: false, project, reason: checked.reason }
    if (this.failure !== undefined) return { ok: false, project, reason: this.failure }
    this.lines!.close()
    this.writeInOrder(checked.library)
    return { ok: true, library: checked.library, file: this.file, snippets: this.count }
  }

  /** `<n>.json`: the fields, then the staged lines: by ordinal when every snippet has one, else code first. */
  private writeInOrder(library: ValidLibrary): void {
    const order = this.starts.map((_, i) => i)
    if (this.orders.every((o) => !Number.isNaN(o))) order.sort((a, b) => this.orders[a] - this.orders[b])
    else order.sort((a, b) => Number(this.isCode[b]) - Number(this.isCode[a]))
    const ends = [...this.starts.slice(1), this.lines!.size]
    const out = new LineWriter(this.file)
    const from = fs.openSync(this.linesFile, 'r')
    try {
      out.write(JSON.stringify({ ...library, snippets: this.count }))
      // Runs of lines already in order are copied a chunk at a time.
      for (let k = 0; k < order.length; ) {
        let last = k
        while (last + 1 < order.length && order[last + 1] === order[last] + 1) last++
        copyRange(from, this.starts[order[k]], ends[order[last]], out)
        k = last + 1
      }
    } finally {
      fs.closeSync(from)
      out.close()
    }
  }

  private removeLines(): void {
    if (!this.lines) return
    this.lines.close()
    fs.rmSync(this.linesFile, { force: true })
  }
}

function copyRange(fd: number, start: number, end: number, out: LineWriter): void {
  const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, end - start))
  for (let at = start; at < end; ) {
    const read = fs.readSync(fd, buffer, 0, Math.min(buffer.length, end - at), at)
    if (read === 0) throw new LecternError('internal_error', `The staged lines ended early at byte ${at}.`)
    out.writeBytes(buffer.subarray(0, read))
    at += read
  }
}

const stagedFieldsSchema = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  sourceKind: z.string(),
  sourceUrl: z.string(),
  branch: z.string().nullable(),
  snippets: z.number().int().positive(),
})

const stagedSnippetSchema = z.object({
  kind: z.enum(['code', 'info']),
  title: z.string(),
  description: z.string(),
  breadcrumb: z.string(),
  pageTitle: z.string(),
  language: z.string(),
  body: z.string(),
  source: z.string(),
  tokens: z.number().int().nonnegative(),
  hash: z.string(),
})

/** A file staged by Lectern 0.1.0: one line, the fields with every snippet in them. */
const wholeStagedSchema = stagedFieldsSchema.extend({ snippets: z.array(stagedSnippetSchema).min(1) })

/**
 * A staged file read back by the job: the library's fields and its snippets in serving order.
 * A file staged by an earlier version, whose job was queued before an upgrade, is read too.
 */
export async function readStagedLibrary(file: string): Promise<{ library: ValidLibrary; snippets: NewSnippet[] }> {
  const damaged = (why: string) => new LecternError('internal_error', `The staged import ${path.basename(file)} is damaged: ${why}.`)
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity })
  let library: (ValidLibrary & { snippets: number }) | undefined
  const snippets: NewSnippet[] = []
  for await (const line of lines) {
    const at = `line ${snippets.length + (library ? 2 : 1)}`
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      throw damaged(`${at} is not JSON`)
    }
    if (!library) {
      const whole = wholeStagedSchema.safeParse(json)
      if (whole.success) {
        const { snippets: all, ...fields } = whole.data
        return { library: fields, snippets: all as NewSnippet[] }
      }
    }
    const parsed = (library ? stagedSnippetSchema : stagedFieldsSchema).safeParse(json)
    if (!parsed.success) throw damaged(`${at}: ${parsed.error.issues[0].message}`)
    if (library) snippets.push(parsed.data as NewSnippet)
    else library = parsed.data as ValidLibrary & { snippets: number }
  }
  if (!library) throw damaged('it is empty')
  if (snippets.length !== library.snippets) throw damaged(`it holds ${snippets.length} of ${library.snippets} snippets`)
  const { snippets: _count, ...fields } = library
  return { library: fields, snippets }
}
