/**
 * One usearch (HNSW, cosine) index file per snippet set, keyed by snippet pk. Written to a temp
 * name and renamed, so a reader never opens half a file. The files are derived data: a missing
 * or mismatched one is rebuilt from the snippets, never a reason to fail a request.
 */
import fs from 'node:fs'
import usearch from 'usearch'

const { Index, MetricKind, ScalarKind } = usearch

type UsearchIndex = InstanceType<typeof Index>

function newIndex(dimensions: number): UsearchIndex {
  return new Index({
    dimensions,
    metric: MetricKind.Cos,
    quantization: ScalarKind.F32,
    connectivity: 16,
    expansion_add: 128,
    expansion_search: 64,
    multi: false,
  })
}

export function writeVectorIndex(file: string, dimensions: number, keys: number[], vectors: Float32Array[]): void {
  const index = newIndex(dimensions)
  if (keys.length > 0) {
    const matrix = new Float32Array(keys.length * dimensions)
    vectors.forEach((v, i) => {
      if (v.length !== dimensions) throw new Error(`vector ${i} has ${v.length} dimensions, expected ${dimensions}`)
      matrix.set(v, i * dimensions)
    })
    index.add(BigUint64Array.from(keys, (k) => BigInt(k)), matrix)
  }
  const tmp = `${file}.${process.pid}.tmp`
  index.save(tmp)
  fs.renameSync(tmp, file)
}

export interface VectorHit {
  pk: number
  distance: number
}

export interface LoadedVectorIndex {
  size: number
  dimensions: number
  search(vector: Float32Array, k: number): VectorHit[]
}

export function loadVectorIndex(file: string, dimensions: number): LoadedVectorIndex {
  const index = newIndex(dimensions)
  // view() memory-maps the file: a thousand libraries cost address space, not heap.
  index.view(file)
  if (index.dimensions() !== dimensions) {
    throw new Error(`${file} has ${index.dimensions()} dimensions, expected ${dimensions}`)
  }
  return {
    size: index.size(),
    dimensions,
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

/** Loaded indexes by set pk. Set pks are never reused, so an entry can never be stale. */
export class VectorIndexCache {
  private readonly entries = new Map<number, LoadedVectorIndex>()

  constructor(private readonly capacity = 4096) {}

  get(setPk: number, load: () => LoadedVectorIndex): LoadedVectorIndex {
    const hit = this.entries.get(setPk)
    if (hit) {
      // Re-insert to mark as most recently used.
      this.entries.delete(setPk)
      this.entries.set(setPk, hit)
      return hit
    }
    const loaded = load()
    this.entries.set(setPk, loaded)
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as number)
    return loaded
  }

  forget(setPk: number): void {
    this.entries.delete(setPk)
  }
}
