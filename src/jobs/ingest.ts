/**
 * From documents to a live snippet set: parse, shape, count tokens, de-duplicate, embed, write
 * rows + vector index, then swap the version to the new set in one transaction.
 *
 * Guarantee: until `finalizeSet` commits, readers keep the previous set; if anything fails
 * before that, the half-built set and its vector file are removed (on a full disk, as soon as
 * writing works again; the job fails with `disk_full`). The replaced
 * set is only marked retired: requests that resolved it a moment earlier may still be reading
 * it, so `sweepSets` (sweep-sets.ts) removes it later (after a grace period, or at the next start).
 */
import { createHash } from 'node:crypto'
import { asDiskFull } from '../disk-full.js'
import type { Embedder } from '../embed/types.js'
import { LecternError } from '../errors.js'
import { parseDocument } from '../parse/index.js'
import type { ParseContext, ParsedSnippet, SourceDocument } from '../parse/types.js'
import { removeSetFiles } from '../index/set-files.js'
import { writeLexicalFile } from '../index/loaded-set.js'
import { lexicalIndexPath, vectorIndexPath } from '../paths.js'
import { renderSnippetText } from '../search/render.js'
import { writeVectorIndex } from '../search/vector-index.js'
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
          ...(parsed.includes ? { includes: parsed.includes } : {}),
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

/** Words of a section that say it teaches how to use something, rather than listing it. */
const EXPLAINING_SECTION = /\b(example|examples|usage|use|using|tutorial|guide|how|getting started|quick ?start|walkthrough|recipe|cookbook)\b/i
/** Pages that list an API: the same example there is usually a bare stub. */
const REFERENCE_PAGE = /(^|\/)(api|reference|references|api-reference)(\/|$)/i

/**
 * How well an occurrence of repeated content explains it: the prose that introduces it, a
 * section about using it over a reference listing. Only comparisons between copies matter.
 */
function explanationScore(snippet: NewSnippet, path: string): number {
  const words = snippet.description.match(/\S+/g)?.length ?? 0
  let score = Math.min(words, 60)
  if (EXPLAINING_SECTION.test(`${snippet.breadcrumb} ${snippet.title}`)) score += 20
  if (REFERENCE_PAGE.test(path) && words === 0) score -= 20
  return score
}

/**
 * Parses documents into snippets. Identical content found on several pages is kept once, in the
 * occurrence that best explains it (the earliest on a tie); the others are remembered in `alsoAt`.
 */
export function snippetsOf(documents: SourceDocument[], locate: SourceLocator, context: ParseContext = {}): NewSnippet[] {
  const byHash = new Map<string, { snippet: NewSnippet; score: number; others: string[] }>()
  for (const doc of documents) {
    for (const parsed of parseDocument(doc, context)) {
      const snippet = toNewSnippet(parsed, locate(doc.path, parsed.anchor))
      const score = explanationScore(snippet, doc.path)
      const kept = byHash.get(snippet.hash)
      if (!kept) byHash.set(snippet.hash, { snippet, score, others: [] })
      else if (score > kept.score) byHash.set(snippet.hash, { snippet, score, others: [...kept.others, kept.snippet.source] })
      else kept.others.push(snippet.source)
    }
  }
  return [...byHash.values()].map(({ snippet, others }) => {
    const alsoAt = [...new Set(others)].filter((source) => source !== snippet.source)
    return alsoAt.length > 0 ? { ...snippet, alsoAt } : snippet
  })
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
      const pks = store.snippets.insert(set.pk, batch)
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
    deps.progress?.('indexing the snippets for search')
    writeLexicalFile(lexicalIndexPath(store.paths, set.pk), store.snippets.allOfSet(set.pk))
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
    removeSetFiles(store.paths, set.pk)
    throw err
  }
}
