/**
 * The loaded sets of one process, bounded by bytes: the least recently used set is dropped when
 * the total goes over the bound (the set just loaded always stays, even alone over it, since
 * the request that loaded it needs it). Set pks are never reused and a loaded set never
 * changes, so an entry is never stale; a set that is swept is forgotten.
 */
import type { LoadedSet } from './loaded-set.js'

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
    for (const [pk, oldest] of this.entries) {
      if (this.total <= this.maxBytes || pk === set.setPk) break
      this.entries.delete(pk)
      this.total -= oldest.bytes
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

  /** Bytes held, and by how many sets. */
  stats(): { bytes: number; sets: number; maxBytes: number } {
    return { bytes: this.total, sets: this.entries.size, maxBytes: this.maxBytes }
  }
}
