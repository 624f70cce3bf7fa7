/**
 * The loaded sets of one process, bounded by the bytes they hold (the cache setting; almost all
 * outside the JavaScript heap, so V8's heap cap does not bound them). The least recently used set
 * is dropped while they are over it (the set just loaded always stays, even alone over it, since
 * the request that loaded it needs it). Set pks are never
 * reused and a loaded set never changes, so an entry is never stale; a set that is swept is
 * forgotten.
 */
import type { LoadedSet } from './loaded-set.js'

export interface SetCacheStats {
  bytes: number
  sets: number
  maxBytes: number
}

export class SetCache {
  private readonly entries = new Map<number, LoadedSet>()
  private total = 0

  constructor(private readonly maxBytes: number) {}

  /** The loaded set, moved to most recently used; undefined when not loaded. */
  get(setPk: number): LoadedSet | undefined {
    const hit = this.entries.get(setPk)
    if (hit) {
      this.entries.delete(setPk)
      this.entries.set(setPk, hit)
    }
    return hit
  }

  /** Whether the set is loaded, without touching its recency. */
  has(setPk: number): boolean {
    return this.entries.has(setPk)
  }

  put(set: LoadedSet): void {
    this.forget(set.setPk)
    this.entries.set(set.setPk, set)
    this.total += set.bytes
    for (const pk of this.entries.keys()) {
      if (this.total <= this.maxBytes || pk === set.setPk) break
      this.forget(pk)
    }
  }

  forget(setPk: number): void {
    const hit = this.entries.get(setPk)
    if (!hit) return
    this.entries.delete(setPk)
    this.total -= hit.bytes
  }

  /** The pks of the loaded sets. */
  setPks(): number[] {
    return [...this.entries.keys()]
  }

  /** Bytes held, by how many sets, and the bound. */
  stats(): SetCacheStats {
    return { bytes: this.total, sets: this.entries.size, maxBytes: this.maxBytes }
  }
}
