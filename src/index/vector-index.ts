/**
 * One usearch (HNSW, cosine) index file per snippet set of a real embedder (a hash-embedded set
 * keeps its vectors in its engine file, set-vectors.ts), keyed by snippet pk, with a JSON
 * sidecar naming its provider, model, dimension, vector count and byte size. Both are written
 * to temp names and renamed, so a reader never opens half a file. The files are derived data:
 * a missing or mismatched one is rebuilt from the snippets, never a reason to fail a request.
 *
 * usearch maps a file without checking it, and a corrupt one crashes the process; so nothing
 * is mapped before `inspectVectorFile` has checked the header, the magic and the sidecar.
 */
import fs from 'node:fs'
import path from 'node:path'
import { threadId } from 'node:worker_threads'
import usearch from 'usearch'
import { asDiskFull } from '../install/disk-full.js'

const { Index, MetricKind, ScalarKind } = usearch

type UsearchIndex = InstanceType<typeof Index>

/**
 * HNSW settings measured on 20k hash-embedded snippets (bench/RESULTS.md): connectivity 8 with
 * expansion 32 builds ~7x faster than usearch's defaults (16/128) at recall@50 0.97 against
 * exact search; the fusion with BM25 that follows needs no more. Vectors are quantized to i8:
 * searches 2.6x faster than f32 (21 vs 55 µs for 4,882 vectors of 384 dimensions) with the same
 * retrieval figures on the development set (bench/RESULTS.md).
 */
function newIndex(dimensions: number): UsearchIndex {
  return new Index({
    dimensions,
    metric: MetricKind.Cos,
    quantization: ScalarKind.I8,
    connectivity: 8,
    expansion_add: 32,
    expansion_search: 64,
    multi: false,
  })
}

export interface VectorFileInfo {
  provider: string
  model: string
  dimensions: number
  count: number
  bytes: number
}

const MAGIC = Buffer.from('usearch')
const sidecarOf = (file: string) => `${file}.json`

function writeAtomically(file: string, write: (tmp: string) => void): void {
  // Named by process and thread: the rebuild thread and a job of the same process may write at once.
  const tmp = `${file}.${process.pid}-${threadId}.tmp`
  try {
    write(tmp)
    const fd = fs.openSync(tmp, 'r')
    fs.fsyncSync(fd)
    fs.closeSync(fd)
  } catch (caught) {
    // Classified while the partial file still fills the disk: usearch's own error does not say why.
    const err = asDiskFull(caught, 'writing a vector index', path.dirname(file))
    // A write cut short must not leave its partial file taking the space.
    fs.rmSync(tmp, { force: true })
    throw err
  }
  fs.renameSync(tmp, file)
}

/**
 * Rewrites a sidecar that holds more than its fields: builds before this one wrote the whole
 * embedder into it, an OpenAI-compatible server's API key included. Returns whether it did.
 */
export function scrubSidecar(file: string): boolean {
  let stored: Record<string, unknown>
  try {
    stored = JSON.parse(fs.readFileSync(sidecarOf(file), 'utf8')) as Record<string, unknown>
  } catch {
    return false
  }
  const fields: Array<keyof VectorFileInfo> = ['provider', 'model', 'dimensions', 'count', 'bytes']
  if (Object.keys(stored).every((key) => (fields as string[]).includes(key))) return false
  const kept = Object.fromEntries(fields.map((key) => [key, stored[key]]))
  writeAtomically(sidecarOf(file), (tmp) => fs.writeFileSync(tmp, JSON.stringify(kept)))
  return true
}

export function removeVectorIndex(file: string): void {
  fs.rmSync(file, { force: true })
  fs.rmSync(sidecarOf(file), { force: true })
}

/** What a vector index file must hold to serve a set: its shape, and, when given, the embedder of its vectors. */
export interface ExpectedVectors {
  dimensions: number
  count: number
  embedder?: { provider: string; model: string }
}

/** Why the file cannot serve a set with this shape, or undefined when it can be mapped safely. */
export function inspectVectorFile(file: string, expected: ExpectedVectors): string | undefined {
  let info: VectorFileInfo
  try {
    info = JSON.parse(fs.readFileSync(sidecarOf(file), 'utf8')) as VectorFileInfo
  } catch {
    return fs.existsSync(file) ? 'its sidecar is missing or unreadable' : 'missing'
  }
  if (info.dimensions !== expected.dimensions || info.count !== expected.count) {
    return `holds ${info.count} vectors of ${info.dimensions} dimensions, expected ${expected.count} of ${expected.dimensions}`
  }
  const { embedder } = expected
  if (embedder && (info.provider !== embedder.provider || info.model !== embedder.model)) {
    return `holds vectors of ${info.provider} ${info.model}, expected ${embedder.provider} ${embedder.model}`
  }
  let fd: number
  try {
    fd = fs.openSync(file, 'r')
  } catch {
    return 'missing'
  }
  try {
    const size = fs.fstatSync(fd).size
    if (size !== info.bytes) return `is ${size} bytes, its sidecar says ${info.bytes}`
    const header = Buffer.alloc(8)
    fs.readSync(fd, header, 0, 8, 0)
    // The vectors come first: rows, bytes per row, then the matrix (i8, or f32 in files written
    // before vectors were quantized, which usearch still reads as they are); the graph follows.
    const [rows, rowBytes] = [header.readUInt32LE(0), header.readUInt32LE(4)]
    if (rows !== expected.count || (rowBytes !== expected.dimensions && rowBytes !== expected.dimensions * 4)) return `its header says ${rows} rows of ${rowBytes} bytes`
    const magic = Buffer.alloc(MAGIC.length)
    fs.readSync(fd, magic, 0, MAGIC.length, 8 + rows * rowBytes)
    return magic.equals(MAGIC) ? undefined : 'is not a usearch index'
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * An index built in parts, so that a job can give way to requests between them (src/jobs/pace.ts),
 * then written with its sidecar.
 */
export class VectorIndexBuilder {
  private readonly index: UsearchIndex
  private count = 0

  constructor(private readonly dimensions: number) {
    this.index = newIndex(dimensions)
  }

  /** How many vectors were added. */
  get size(): number {
    return this.count
  }

  add(keys: number[], vectors: Float32Array[]): void {
    if (keys.length === 0) return
    const { dimensions } = this
    const matrix = new Float32Array(keys.length * dimensions)
    vectors.forEach((v, i) => {
      if (v.length !== dimensions) throw new Error(`vector ${this.count + i} has ${v.length} dimensions, expected ${dimensions}`)
      matrix.set(v, i * dimensions)
    })
    this.index.add(BigUint64Array.from(keys, (k) => BigInt(k)), matrix)
    this.count += keys.length
  }

  write(file: string, embedder: { provider: string; model: string }): void {
    writeAtomically(file, (tmp) => this.index.save(tmp))
    // Named field by field: an embedder object also holds its URL and API key, which have no place in a file.
    const info: VectorFileInfo = { provider: embedder.provider, model: embedder.model, dimensions: this.dimensions, count: this.count, bytes: fs.statSync(file).size }
    writeAtomically(sidecarOf(file), (tmp) => fs.writeFileSync(tmp, JSON.stringify(info)))
  }
}

export function writeVectorIndex(
  file: string,
  embedder: { provider: string; model: string },
  dimensions: number,
  keys: number[],
  vectors: Float32Array[],
): void {
  const builder = new VectorIndexBuilder(dimensions)
  builder.add(keys, vectors)
  builder.write(file, embedder)
}

export interface VectorHit {
  pk: number
  distance: number
}

export interface LoadedVectorIndex {
  size: number
  dimensions: number
  /** The embedder of its vectors, as expected when it was loaded. */
  embedder?: { provider: string; model: string }
  search(vector: Float32Array, k: number): VectorHit[]
}

export function loadVectorIndex(file: string, expected: ExpectedVectors): LoadedVectorIndex {
  const problem = inspectVectorFile(file, expected)
  if (problem) throw new Error(`vector index ${file} ${problem}`)
  const { dimensions } = expected
  const index = newIndex(dimensions)
  // view() memory-maps the file: a thousand libraries cost address space, not heap.
  index.view(file)
  if (index.dimensions() !== dimensions) {
    throw new Error(`${file} has ${index.dimensions()} dimensions, expected ${dimensions}`)
  }
  return {
    size: index.size(),
    dimensions,
    embedder: expected.embedder,
    search(vector, k) {
      const limit = Math.min(k, index.size())
      if (limit === 0) return []
      const matches = index.search(vector, limit, 1)
      const hits: VectorHit[] = []
      for (let i = 0; i < matches.keys.length; i++) {
        hits.push({ pk: Number(matches.keys[i]), distance: matches.distances[i] })
      }
      return hits
    },
  }
}
