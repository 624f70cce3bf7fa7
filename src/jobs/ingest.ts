/**
 * From documents to a live snippet set: parse, shape, count tokens, de-duplicate, embed, write
 * rows + FTS + vector index, then swap the version to the new set in one transaction.
 *
 * Guarantee: until `finalizeSet` commits, readers keep the previous set; if anything fails
 * before that, the half-built set, its FTS table and its vector file are removed (on a full disk,
 * as soon as writing works again; the job fails with `disk_full`). The replaced
 * set is only marked retired: requests that resolved it a moment earlier may still be reading
 * it, so `sweepSets` removes it later (after a grace period, or at the next start).
 */
import { createHash } from 'node:crypto'
import { asDiskFull } from '../disk-full.js'
import type { Embedder } from '../embed/types.js'
import { LecternError } from '../errors.js'
import { parseDocument } from '../parse/index.js'
import type { ParsedSnippet, SourceDocument } from '../parse/types.js'
import { vectorIndexPath } from '../paths.js'
import { renderSnippetText } from '../search/render.js'
import { indexTextOf } from '../search/terms.js'
import { removeVectorIndex, writeVectorIndex } from '../search/vector-index.js'
import type { Store } from '../store/index.js'
import type { NewSnippet } from '../store/snippets.js'
import { countTokens } from '../tokens.js'

/** Caps that keep one library from exhausting the host; over them the job fails `library_too_large`. */
export const LIMITS = { maxSnippets: 200_000, maxTokens: 50_000_000 }
const BATCH = 256
/** The part of a snippet an embedder sees; long code adds little meaning past this. */
const EMBED_CHARS = 2000

export interface IngestTarget {
  versionPk: number
  commitSha: string | null
}

export interface IngestDeps {
  store: Store
  embedder: Embedder
  signal?: AbortSignal
  progress?: (message: string) => void
}

export interface IngestResult {
  setPk: number
  snippets: number
  tokens: number
  documents: number
}

/** Where a snippet came from, as a link or `path#anchor`. */
export type SourceLocator = (path: string, anchor: string) => string

export function toNewSnippet(parsed: ParsedSnippet, source: string): NewSnippet {
  const base =
    parsed.kind === 'code'
      ? {
          kind: 'code' as const,
          title: parsed.title,
          description: parsed.description,
          breadcrumb: parsed.breadcrumb,
          pageTitle: parsed.pageTitle,
          language: parsed.codeList[0]?.language ?? 'text',
          body: JSON.stringify(parsed.codeList),
          source,
        }
      : {
          kind: 'info' as const,
          title: parsed.breadcrumb || parsed.pageTitle,
          description: '',
          breadcrumb: parsed.breadcrumb,
          pageTitle: parsed.pageTitle,
          language: '',
          body: parsed.content,
          source,
        }
  return completeSnippet(base)
}

/** Adds the token count and the de-duplication hash to a snippet's text fields. */
export function completeSnippet(base: Omit<NewSnippet, 'tokens' | 'hash'>): NewSnippet {
  // The same code or prose under another title is the same snippet: only the first is kept, so
  // answers never spend their token budget twice on one example.
  const normalised = base.body.replace(/\s+/g, ' ').trim().toLowerCase()
  const hash = createHash('sha256').update(`${base.kind}\0${normalised}`).digest('hex')
  return { ...base, tokens: countTokens(renderSnippetText(base)), hash }
}

/** Parses documents into snippets, keeping the first of identical ones. */
export function snippetsOf(documents: SourceDocument[], locate: SourceLocator): NewSnippet[] {
  const byHash = new Map<string, NewSnippet>()
  for (const doc of documents) {
    for (const parsed of parseDocument(doc)) {
      const snippet = toNewSnippet(parsed, locate(doc.path, parsed.anchor))
      if (!byHash.has(snippet.hash)) byHash.set(snippet.hash, snippet)
    }
  }
  return [...byHash.values()]
}

export const embedText = (s: Pick<NewSnippet, 'title' | 'breadcrumb' | 'description' | 'body'>) => `${s.title}\n${s.breadcrumb}\n${s.description}\n${s.body}`.slice(0, EMBED_CHARS)

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

export async function ingestSnippets(deps: IngestDeps, target: IngestTarget, snippets: NewSnippet[]): Promise<IngestResult> {
  const { store, embedder } = deps
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
  const set = store.snippets.createSet(target.versionPk, { provider: embedder.provider, model: embedder.model, dimensions })
  const vectorFile = vectorIndexPath(store.paths, set.pk)
  try {
    const keys: number[] = []
    const vectors: Float32Array[] = []
    for (let i = 0; i < snippets.length; i += BATCH) {
      deps.signal?.throwIfAborted()
      const batch = snippets.slice(i, i + BATCH)
      const embedded = await embedder.embed(batch.map(embedText), deps.signal)
      const pks = store.snippets.insert(set.pk, batch.map((snippet) => ({ snippet, index: indexTextOf(snippet) })))
      pks.forEach((pk, j) => {
        if (pk === null) return
        keys.push(pk)
        vectors.push(embedded[j])
      })
      deps.progress?.(`embedded ${Math.min(i + BATCH, snippets.length)} of ${snippets.length} snippets`)
      await yieldToEventLoop()
    }
    deps.signal?.throwIfAborted()
    writeVectorIndex(vectorFile, embedder, dimensions, keys, vectors)
    store.snippets.finalizeSet(set.pk, target.versionPk, { tokens, snippets: keys.length, commitSha: target.commitSha })
    return { setPk: set.pk, snippets: keys.length, tokens, documents: new Set(snippets.map((s) => s.source)).size }
  } catch (caught) {
    const err = asDiskFull(caught, 'writing the snippet set', store.paths.root)
    try {
      store.snippets.dropSet(set.pk)
    } catch {
      // The disk refuses even the delete: the set stays `building`, and the worker sweeps it
      // between jobs once writing works again (runtime.ts).
    }
    removeVectorIndex(vectorFile)
    throw err
  }
}

/**
 * Removes retired sets (replaced by a newer one) and building sets (left by a job that died),
 * with their FTS tables and vector files. Only safe for `building` sets when no job runs.
 */
export function sweepSets(store: Store, statuses: Array<'retired' | 'building'>, onRemoved?: (setPk: number) => void): number {
  let removed = 0
  for (const status of statuses) {
    for (const set of store.snippets.setsWithStatus(status)) {
      store.snippets.dropSet(set.pk)
      removeVectorIndex(vectorIndexPath(store.paths, set.pk))
      onRemoved?.(set.pk)
      removed++
    }
  }
  return removed
}
