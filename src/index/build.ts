/**
 * Building a snippet set: count, embed, write its rows (with their vectors, unless the engine file
 * holds them: `hasVectorIndex`), its vector index (likewise) and its engine file, then swap the version to the new set
 * in one transaction.
 *
 * Guarantee: until `finalizeSet` commits, readers keep the previous set; if anything fails
 * before that, the half-built set and its files are removed (on a full disk, as soon as
 * writing works again; the job fails with `disk_full`). The replaced
 * set is only marked retired: requests that resolved it a moment earlier may still be reading
 * it, so `sweepSets` (sweep.ts) removes it later (after a grace period, or at the next start).
 */
import { asDiskFull } from '../install/disk-full.js'
import type { Embedder } from '../embed/types.js'
import { LecternError } from '../errors.js'
import { engineFilePath, vectorIndexPath } from '../install/paths.js'
import { VectorIndexBuilder } from './vector-index.js'
import type { Store } from '../store/index.js'
import type { NewSnippet } from '../store/snippets.js'
import { embedText } from './embed-text.js'
import { engineFileKind, hasVectorIndex, writeEngineFilePaced } from './loaded-set.js'
import { removeSetFiles } from './set-files.js'
import { endedBuilding, startedBuilding } from './building.js'

/** Caps that keep one library from exhausting the host; over them the job fails `library_too_large`. */
export const LIMITS = { maxSnippets: 200_000, maxTokens: 50_000_000 }
const BATCH = 256

export interface IngestTarget {
  versionPk: number
  commitSha: string | null
}

export interface IngestDeps {
  store: Store
  embedder: Embedder
  signal?: AbortSignal
  progress?: (message: string) => void
  log?: { warn(obj: object, msg: string): void }
  /** Awaited between batches and index chunks: a job's pace (src/jobs/pace.ts); by default a turn of the event loop. */
  pace?: () => Promise<void>
  /** Throws unless the job still holds its lease (src/jobs/lease.ts); run in the transaction that swaps the new set in. */
  fence?: () => Promise<void>
}

export interface IngestResult {
  setPk: number
  snippets: number
  tokens: number
  documents: number
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

export async function ingestSnippets(deps: IngestDeps, target: IngestTarget, snippets: NewSnippet[]): Promise<IngestResult> {
  const { store, embedder } = deps
  const pace = deps.pace ?? yieldToEventLoop
  const tokens = snippets.reduce((sum, s) => sum + s.tokens, 0)
  if (snippets.length === 0) {
    throw new LecternError('no_code_found', 'No documentation or code snippets were found in the source.')
  }
  if (snippets.length > LIMITS.maxSnippets || tokens > LIMITS.maxTokens) {
    throw new LecternError(
      'library_too_large',
      `The library has ${snippets.length} snippets and ${tokens} tokens; the limits are ${LIMITS.maxSnippets} snippets and ${LIMITS.maxTokens} tokens.`,
    )
  }
  const dimensions = await embedder.dimensions()
  const set = await store.snippets.createSet(target.versionPk, { provider: embedder.provider, model: embedder.model, dimensions })
  startedBuilding(set.pk)
  try {
    // No vector is kept past its batch: a real embedder's go into the vector index as they come,
    // and the hash embedder's are embedded again for the engine file (2 s for 130,000 snippets),
    // where keeping them cost 1.5 KB a snippet, 200 MB for the largest import (bench/RESULTS.md).
    const index = hasVectorIndex(set) ? new VectorIndexBuilder(dimensions) : undefined
    let stored = 0
    for (let i = 0; i < snippets.length; i += BATCH) {
      deps.signal?.throwIfAborted()
      const batch = snippets.slice(i, i + BATCH)
      const embedded = await embedder.embed(batch.map(embedText), deps.signal)
      // A real embedder's vectors are stored with their rows: any index file is rebuilt from them (vectors.ts).
      const pks = await store.snippets.insert(set.pk, batch, index ? embedded : undefined)
      const keys: number[] = []
      const vectors: Float32Array[] = []
      pks.forEach((pk, j) => {
        if (pk === null) return
        keys.push(pk)
        vectors.push(embedded[j])
      })
      index?.add(keys, vectors)
      stored += keys.length
      deps.progress?.(`embedded ${Math.min(i + BATCH, snippets.length)} of ${snippets.length} snippets`)
      await pace()
    }
    if (index) {
      deps.signal?.throwIfAborted()
      index.write(vectorIndexPath(store.paths, set.pk), embedder)
    }
    deps.progress?.('indexing the snippets for search')
    try {
      await writeEngineFilePaced(engineFilePath(store.paths, set.pk), await store.snippets.allOfSet(set.pk), engineFileKind(set), pace)
    } catch (err) {
      // Derived data: the set's first load builds the file from the rows (and writes it if it can).
      deps.log?.warn({ setPk: set.pk, err }, 'could not write the engine file; the first question will build it')
    }
    // Building the engine file takes a while for a large set: a stop asked meanwhile wins.
    deps.signal?.throwIfAborted()
    await store.transaction(async () => {
      await deps.fence?.()
      await store.snippets.finalizeSet(set.pk, target.versionPk, { tokens, snippets: stored, commitSha: target.commitSha })
    })
    return { setPk: set.pk, snippets: stored, tokens, documents: new Set(snippets.map((s) => s.source)).size }
  } catch (caught) {
    const err = asDiskFull(caught, 'writing the snippet set', store.paths.root)
    try {
      await store.snippets.dropSet(set.pk)
    } catch {
      // The disk refuses even the delete: the set stays `building`, and the worker sweeps it
      // between jobs once writing works again (runtime.ts).
    }
    removeSetFiles(store.paths, set.pk)
    throw err
  } finally {
    endedBuilding(set.pk)
  }
}
