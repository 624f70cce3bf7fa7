/**
 * Rows a request reads, kept while the catalogue version they were read at holds (migrations 0012
 * and 0021 move it whenever they change): a request that read version V gets the row as read at
 * V, or reads it again. Only rows found are kept, since creating one (a new key) moves nothing.
 */
const MAX_ENTRIES = 10_000

export class VersionCache<K, V> {
  private at = -1
  private readonly values = new Map<K, V>()

  /** The value under `key`: kept at `catalogVersion`, else `read()`; always read when no version is given. */
  async get(key: K, catalogVersion: number | undefined, read: () => Promise<V | undefined>): Promise<V | undefined> {
    if (catalogVersion === undefined) return read()
    if (catalogVersion !== this.at) {
      this.at = catalogVersion
      this.values.clear()
    }
    const kept = this.values.get(key)
    if (kept !== undefined) return kept
    const value = await read()
    // Bounded: keys come from clients. Kept only if no newer version was seen while it was read.
    if (value !== undefined && this.at === catalogVersion && this.values.size < MAX_ENTRIES) this.values.set(key, value)
    return value
  }
}
