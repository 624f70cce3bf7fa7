/**
 * The loaded snippet sets of one process: each loaded on first use or ahead of it (`warm`),
 * kept while they fit the memory bound, and forgotten when swept or no longer live. SQLite stays
 * the source of truth: a set is loaded from its engine file, rebuilt from its rows when it does not match.
 * One cache serves every embedder: a set of a real embedder brings its vector index along.
 */
import { engineFilePath, vectorIndexPath } from '../install/paths.js'
import type { Store } from '../store/index.js'
import { engineFileKind, loadSet, loadSetFromBytes, loadSetFromFile, type EngineFileKind, type LoadLog, type LoadedSet } from './loaded-set.js'
import { claimRebuild, claimReleased } from './rebuild-claim.js'
import type { SetFileRebuilder } from './rebuilder.js'
import { SetCache, type SetCacheStats } from './set-cache.js'
import type { SnippetSet } from '../store/snippets.js'
import { inspectVectorFile, loadVectorIndex, type LoadedVectorIndex } from './vector-index.js'

/** How often, at most, loaded sets are checked against the database for sets no longer live. */
const PRUNE_INTERVAL_MS = 1000
export class SetEngine {
  private readonly cache: SetCache
  private prunedAt = 0
  private prunedVersion = -1
  /** The prune under way, which requests do not wait for. */
  private pruning: Promise<void> | undefined
  /** Sets being loaded off the serving thread (with a rebuilder). */
  private readonly loading = new Map<number, Promise<LoadedSet>>()
  /** Vector indexes being opened (and written from stored vectors first, when they must be). */
  private readonly openingVectors = new Map<number, Promise<LoadedVectorIndex>>()

  constructor(
    private readonly store: Store,
    maxBytes: number,
    private readonly log?: LoadLog,
    /** Where engine files that do not match their rows are rebuilt, and vector indexes written from stored vectors; else on this thread. */
    private readonly rebuilder?: SetFileRebuilder,
  ) {
    this.cache = new SetCache(maxBytes)
  }

  /**
   * The set, loaded now if it is not yet. With a rebuilder, a set whose engine file must be
   * rebuilt is rebuilt by it while this thread serves other requests (should it fail, here).
   */
  async loaded(set: SnippetSet): Promise<LoadedSet> {
    this.pruneSometimes()
    const hit = this.cache.get(set.pk)
    // Re-embedded elsewhere into another kind of engine data (to or from the hash embedder): loaded anew.
    if (hit && holdsEngineDataOf(hit, set)) return hit
    if (hit) this.cache.forget(set.pk)
    return this.sharedLoad(set.pk)
  }

  private async sharedLoad(setPk: number): Promise<LoadedSet> {
    const loaded = await this.loadOnce(setPk, 'while its request waited')
    // Retired while it loaded: answered from, not kept (pruneSometimes may have passed already).
    if (!this.cache.has(setPk) && (await this.store.snippets.set(setPk))?.status === 'live') this.cache.put(loaded)
    return loaded
  }

  /** One load per set at a time: whoever asks for a set while it loads waits for that load. */
  private loadOnce(setPk: number, where: string): Promise<LoadedSet> {
    let loading = this.loading.get(setPk)
    if (!loading) {
      const load = this.rebuilder ? this.loadOffThread(setPk, this.rebuilder) : this.load(setPk, where)
      loading = load.finally(() => this.loading.delete(setPk))
      this.loading.set(setPk, loading)
    }
    return loading
  }

  /**
   * Loads the given sets ahead of their first request, most wanted first, while they fit the
   * bound; yields to the event loop before each set, so requests are served meanwhile. Returns
   * how many were loaded.
   */
  async warm(setPks: readonly number[], signal?: AbortSignal): Promise<number> {
    let loaded = 0
    for (const setPk of setPks) {
      await new Promise<void>((resolve) => setImmediate(resolve))
      if (signal?.aborted) break
      if (this.cache.has(setPk) || (await this.store.snippets.set(setPk))?.status !== 'live') continue
      const next = await this.loadOnce(setPk, 'before its first request')
      if (signal?.aborted || this.cache.has(setPk)) continue
      const room = this.cache.stats()
      // Full: keeping it would drop what was loaded first, the most wanted.
      if (room.bytes + next.bytes > room.maxBytes) break
      this.cache.put(next)
      loaded++
    }
    return loaded
  }

  /**
   * Loads the set from its engine file, once the rebuilder has rebuilt it if it did not match. Of
   * the processes serving the data directory, one rebuilds it; the others wait and load its file.
   */
  private async loadOffThread(setPk: number, rebuilder: SetFileRebuilder): Promise<LoadedSet> {
    const { snippets } = this.store
    const { file, kind } = await this.engineFileOf(setPk)
    for (;;) {
      const fromFile = loadSetFromFile(setPk, await snippets.headsOfSet(setPk), kind, file, this.log)
      if (fromFile) return fromFile
      const claim = claimRebuild(file)
      if (claim) {
        try {
          return await this.rebuildOffThread(setPk, rebuilder, file, kind)
        } finally {
          claim.release()
        }
      }
      // Another process rebuilds it; should it fail or leave, the next turn claims the rebuild here.
      await claimReleased(file, () => rebuilder.closed)
      if (rebuilder.closed) throw new Error('the rebuild thread is closed')
    }
  }

  private async rebuildOffThread(setPk: number, rebuilder: SetFileRebuilder, file: string, kind: EngineFileKind): Promise<LoadedSet> {
    const { snippets } = this.store
    try {
      const started = performance.now()
      const { bytes, writeError } = await rebuilder.rebuild(setPk, file)
      if (writeError) this.log?.warn({ setPk, file, writeError }, 'could not write the engine file; it is rebuilt at the next load')
      // Undefined when the rows changed while it was built: loaded from them here.
      const built = loadSetFromBytes(setPk, await snippets.headsOfSet(setPk), kind, bytes)
      if (built) {
        this.logRebuilt(built, started, 'on its own thread')
        return built
      }
    } catch (err) {
      // Closed with the server: nothing is left to answer.
      if (rebuilder.closed) throw err
      this.log?.warn({ setPk, err }, 'the engine file could not be rebuilt on its thread; rebuilding it here')
    }
    return await this.load(setPk, 'on the serving thread')
  }

  private async load(setPk: number, where: string): Promise<LoadedSet> {
    const { snippets } = this.store
    const { file, kind } = await this.engineFileOf(setPk)
    const started = performance.now()
    const loaded = await loadSet(setPk, await snippets.headsOfSet(setPk), kind, file, () => snippets.allOfSet(setPk), this.log)
    if (loaded.builtFrom === 'rows') this.logRebuilt(loaded, started, where)
    return loaded
  }

  /**
   * A rebuild is worth a line: it costs about 100 ms per 1,000 snippets, and follows a restore or a
   * damaged file. It says "engine data", not "file": should the file not be written, a warning
   * says so before this line, and the set is served from what was rebuilt in memory.
   */
  private logRebuilt(loaded: LoadedSet, started: number, where: string): void {
    const ms = Math.round(performance.now() - started)
    this.log?.info({ setPk: loaded.setPk, snippets: loaded.snippets.length, ms }, `rebuilt the engine data of snippet set ${loaded.setPk} (${loaded.snippets.length} snippets) from its rows in ${ms} ms, ${where}`)
  }

  /** Where the set's engine file is, and what it holds. */
  private async engineFileOf(setPk: number): Promise<{ file: string; kind: EngineFileKind }> {
    const set = await this.store.snippets.set(setPk)
    if (!set) throw new Error(`snippet set ${setPk} vanished`)
    return { file: engineFilePath(this.store.paths, setPk), kind: engineFileKind(set) }
  }

  /**
   * A loaded set's vector index (a real embedder's), read on its first vector search and kept
   * with the set. The index is memory-mapped: it costs address space, not heap, so the cache's
   * bound does not count it. Undefined while it cannot be used (vectorsUnavailable).
   *
   * On PostgreSQL a file that is missing or does not match the set (the set was built or
   * re-embedded by another replica, the file was lost) is derived data: it is written from the
   * vectors the set's rows hold, once (vectors.ts), by the rebuild thread when there is one: usearch
   * builds it synchronously, which on this thread would hold every other request. On SQLite the
   * start-up check queues the `rebuild-vectors` job, which writes it in the job process.
   */
  async vectorIndex(loaded: LoadedSet, set: SnippetSet): Promise<LoadedVectorIndex | undefined> {
    const held = loaded.vectorIndex?.embedder
    // Re-embedded since it was loaded (by another replica, whose job told only its own engine).
    if (held && (held.provider !== set.embedProvider || held.model !== set.embedModel || loaded.vectorIndex!.dimensions !== set.dimensions)) loaded.vectorIndex = undefined
    if (loaded.vectorIndex === undefined) {
      let opening = this.openingVectors.get(set.pk)
      if (!opening) {
        opening = this.openVectorIndex(set).finally(() => this.openingVectors.delete(set.pk))
        this.openingVectors.set(set.pk, opening)
      }
      try {
        loaded.vectorIndex = await opening
      } catch (err) {
        this.vectorsUnavailable(loaded, err)
      }
    }
    return loaded.vectorIndex ?? undefined
  }

  private async openVectorIndex(set: SnippetSet): Promise<LoadedVectorIndex> {
    // Loaded with the first vector search: a command that only opens the store never needs it (test/integration/cli-startup.test.ts).
    const { expectedVectors } = await import('./vectors.js')
    const file = vectorIndexPath(this.store.paths, set.pk)
    const expected = await expectedVectors(this.store, set)
    const problem = inspectVectorFile(file, expected)
    if (problem && this.store.database.kind === 'postgres') {
      const started = performance.now()
      const [vectors, where] = this.rebuilder ? [await this.rebuilder.writeVectorIndex(set.pk, file), 'on its own thread'] : [await this.writeVectorIndexHere(set, file), 'on the serving thread']
      if (vectors !== undefined) {
        const ms = Math.round(performance.now() - started)
        this.log?.info({ setPk: set.pk, vectors, ms, problem }, `wrote the vector index of snippet set ${set.pk} (${vectors} vectors) from its stored vectors in ${ms} ms, ${where}: the file ${problem}`)
      }
    }
    return loadVectorIndex(file, expected)
  }

  /** As the rebuild thread writes it (rebuild-thread.ts), for a process without one. */
  private async writeVectorIndexHere(set: SnippetSet, file: string): Promise<number | undefined> {
    const { indexFromStoredVectors } = await import('./vectors.js')
    const index = await indexFromStoredVectors(this.store.snippets, set)
    // Written only while the set is live: a swept set gets no file that nothing would remove.
    if (!index || (await this.store.snippets.set(set.pk))?.status !== 'live') return undefined
    index.write(file, { provider: set.embedProvider, model: set.embedModel })
    return index.size
  }

  /**
   * Derived data or a remote embedder failed: until the set is loaded again (the start-up check
   * rebuilds a bad index; a refresh makes a new set), its lexical index answers alone rather
   * than each request failing, or waiting on an embedder that is down.
   */
  vectorsUnavailable(loaded: LoadedSet, err: unknown): void {
    loaded.vectorIndex = null
    this.log?.warn({ setPk: loaded.setPk, err }, 'vector search unavailable; answering with the lexical index only')
  }

  forget(setPk: number): void {
    this.cache.forget(setPk)
  }

  stats(): SetCacheStats {
    return this.cache.stats()
  }

  /**
   * Sets replaced or removed by a write of any process or replica (a refresh, `lectern libraries
   * remove`) are never asked again: once the catalogue changed, and at most once a second, the
   * loaded sets that are no longer live, or were re-embedded into another kind of engine data,
   * are dropped rather than left to age out. It runs beside the request that starts it, which
   * never waits on the database for it (issue 31): a prune that cannot read the rows (PostgreSQL
   * unreachable) keeps every set and is tried again at the next change or second.
   */
  private pruneSometimes(): void {
    const now = Date.now()
    if (this.pruning || now - this.prunedAt < PRUNE_INTERVAL_MS) return
    this.prunedAt = now
    const version = this.store.catalogVersion()
    if (version === this.prunedVersion || !this.store.isReachable()) return
    this.pruning = this.prune()
      .then(() => {
        this.prunedVersion = version
      })
      .catch((err: unknown) => this.log?.warn({ err }, 'could not check which loaded snippet sets are still live; they stay loaded until the next check'))
      .finally(() => {
        this.pruning = undefined
      })
  }

  private async prune(): Promise<void> {
    for (const setPk of this.cache.setPks()) {
      const set = await this.store.snippets.set(setPk)
      const loaded = this.cache.get(setPk)
      if (set?.status !== 'live' || (loaded && !holdsEngineDataOf(loaded, set))) this.cache.forget(setPk)
    }
  }
}

/** Whether the loaded set holds the engine data its set's embedder needs: a hash-embedded set's vectors of its dimension, or none. */
function holdsEngineDataOf(loaded: LoadedSet, set: SnippetSet): boolean {
  const { hashDimensions } = engineFileKind(set)
  return hashDimensions === 0 ? loaded.vectors === undefined : loaded.vectors?.dimensions === hashDimensions
}
