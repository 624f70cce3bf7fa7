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
  get(key: K, catalogVersion: number | undefined, read: () => V | undefined): V | undefined {
    if (catalogVersion === undefined) return read()
    if (catalogVersion !== this.at) {
      this.at = catalogVersion
      this.values.clear()
    }
    let value = this.values.get(key)
    if (value === undefined) {
      value = read()
      // Bounded: keys come from clients.
      if (value !== undefined && this.values.size < MAX_ENTRIES) this.values.set(key, value)
    }
    return value
  }
}
