/**
 * Library search (`/v2/libs/search`): finds libraries by exact ID, by name, by a misspelt name,
 * and breaks ties with the question. The catalogue is small (thousands of rows at most), so it
 * is held in memory and rebuilt only when the database changed since the last search.
 */
import { describeFailure, type Caller } from '../library/access.js'
import { canSeeLibrary, decide, policySubject } from '../library/visibility.js'
import { LecternError } from '../errors.js'
import type { Store } from '../store/index.js'
import type { Library, LibraryState, LibraryVersion } from '../store/libraries.js'
import { editDistance } from '../text/edit-distance.js'
import { questionWords } from '../text/terms.js'

/** The Library object of Context7's openapi.json. */
export interface LibrarySummary {
  id: string
  title: string
  description: string
  branch: string
  lastUpdateDate: string
  state: LibraryState
  totalTokens: number
  totalSnippets: number
  trustScore: number
  benchmarkScore: number
  versions: string[]
  imported?: boolean
  /** With state `error`: why the library is not searchable, as much as the caller may read. */
  failure?: { error: string; message: string }
}

interface CatalogueEntry {
  summary: LibrarySummary
  library: Library
  /** The default version first, then the tags, most recently updated first. */
  versions: LibraryVersion[]
  /** The default version's stored failure, when its state is `error`. */
  failure?: { code: string; reason: string | null }
  /** Normalised names the library answers to: repo name, title, owner+repo. */
  names: string[]
  words: Set<string>
  text: string
}

const normalise = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '')
const wordsOf = (s: string) => new Set(s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0))

export function summarise(library: Library, versions: LibraryVersion[]): LibrarySummary {
  const main = versions.find((v) => v.tag === '') ?? versions[0]
  return {
    id: library.id,
    title: library.title,
    description: library.description,
    branch: library.branch ?? '',
    lastUpdateDate: main?.updatedAt ?? library.updatedAt,
    state: main?.state ?? 'initial',
    totalTokens: main?.totalTokens ?? 0,
    totalSnippets: main?.totalSnippets ?? 0,
    trustScore: library.trustScore,
    // No benchmark is run on-premise; Context7 clients expect the field, so it is present and 0.
    benchmarkScore: 0,
    versions: versions.filter((v) => v.tag !== '').map((v) => v.tag),
    ...(library.isImported ? { imported: true } : {}),
  }
}

function toEntry(library: Library, versions: LibraryVersion[]): CatalogueEntry {
  const [, owner, repo] = library.id.split('/')
  const main = versions.find((v) => v.tag === '')
  return {
    summary: summarise(library, versions),
    library,
    versions,
    ...(main?.state === 'error' ? { failure: { code: main.errorCode ?? 'internal_error', reason: main.errorMessage } } : {}),
    names: [...new Set([normalise(repo), normalise(library.title), normalise(owner + repo)])].filter(Boolean),
    words: wordsOf(`${library.id} ${library.title}`),
    text: `${library.id} ${library.title} ${library.description}`.toLowerCase(),
  }
}

/** How well a library answers to a name, 0 when it does not. */
function nameScore(entry: CatalogueEntry, rawName: string): number {
  const name = rawName.trim().toLowerCase()
  const id = entry.summary.id
  if (name === id || `/${name}` === id || name.replace(/@.*$/, '') === id) return 1000
  const wanted = normalise(name.replace(/^\//, ''))
  if (wanted === '') return 0
  let best = 0
  for (const candidate of entry.names) {
    if (candidate === wanted) best = Math.max(best, 500)
    else if (candidate.startsWith(wanted) && wanted.length >= 2) best = Math.max(best, 300 + 100 * (wanted.length / candidate.length))
    else if (wanted.length >= 3 && candidate.includes(wanted)) best = Math.max(best, 150 + 100 * (wanted.length / candidate.length))
    const similarity = 1 - editDistance(candidate, wanted) / Math.max(candidate.length, wanted.length)
    // Misspellings: one edit in five characters still finds the library ("fastfy" -> fastify, "flaks" -> flask).
    if (similarity >= 0.7) best = Math.max(best, 250 * similarity)
  }
  const nameWords = [...wordsOf(name)]
  if (nameWords.length > 0 && nameWords.every((w) => entry.words.has(w))) best = Math.max(best, 200)
  if (best === 0 && nameWords.length > 0) {
    const inText = nameWords.filter((w) => w.length >= 3 && entry.text.includes(w)).length / nameWords.length
    if (inText >= 0.5) best = 60 * inText
  }
  return best
}

/** Tie-breaker: how much of the question the library's title and description cover. */
function questionScore(entry: CatalogueEntry, terms: string[]): number {
  if (terms.length === 0) return 0
  return (40 * terms.filter((t) => entry.text.includes(t)).length) / terms.length
}

export interface SearchOptions {
  /** Who asks: only the libraries they may see exist for them (library/visibility.ts). */
  caller: Caller
  limit?: number
  /** The catalogue version the request already read (the server reads it once per request); read here when absent. */
  catalogVersion?: number
}

/** An entry's summary as the caller may read it. */
function present(entry: CatalogueEntry, caller: Caller): LibrarySummary {
  if (!entry.failure) return entry.summary
  return { ...entry.summary, failure: describeFailure(caller, entry.library, entry.failure.code, entry.failure.reason) }
}

/** A library the caller may see, with its versions and its summary as the caller may read it. */
export interface CatalogueItem {
  library: Library
  versions: readonly LibraryVersion[]
  summary: LibrarySummary
}

export class LibraryCatalogue {
  private entries: CatalogueEntry[] = []
  private builtAt: number | undefined
  /** The read of a newer version under way, if any. */
  private building: { version: number; entries: Promise<CatalogueEntry[]> } | undefined

  constructor(private readonly store: Store) {}

  /** The libraries the caller may see, ordered by ID. */
  async items(options: SearchOptions): Promise<CatalogueItem[]> {
    return (await this.current(options.catalogVersion))
      .filter((e) => canSeeLibrary(options.caller, e.library))
      .map((e) => ({ library: e.library, versions: e.versions, summary: present(e, options.caller) }))
  }

  async list(options: SearchOptions): Promise<LibrarySummary[]> {
    return (await this.items(options)).map((item) => item.summary)
  }

  async search(libraryName: string, query: string | undefined, options: SearchOptions): Promise<LibrarySummary[]> {
    const terms = query ? questionWords(query) : []
    const now = Date.now()
    const scored = (await this.current(options.catalogVersion))
      .filter((e) => decide(options.caller, e.library, () => policySubject(e.library, e.versions.find((v) => v.tag === '')), now) === 'visible')
      .map((entry) => ({ entry, score: nameScore(entry, libraryName) }))
      .filter((s) => s.score > 0)
      .map(({ entry, score }) => ({
        entry,
        score: score + questionScore(entry, terms) + (entry.summary.state === 'finalized' ? 5 : 0) + Math.log10(1 + entry.summary.totalSnippets),
      }))
      .sort((a, b) => b.score - a.score || a.entry.summary.id.localeCompare(b.entry.summary.id))
    if (scored.length === 0) {
      throw new LecternError('no_libraries_found', `No libraries found matching "${libraryName}".`)
    }
    return scored.slice(0, options.limit ?? 10).map((s) => present(s.entry, options.caller))
  }

  private current(version = this.store.catalogVersion()): Promise<CatalogueEntry[]> | CatalogueEntry[] {
    if (version === this.builtAt) return this.entries
    // One read per version, in one read transaction (the libraries and their versions as of one
    // moment), shared by the requests that ask while it runs.
    if (this.building?.version !== version) {
      const building = {
        version,
        entries: this.store.readTransaction(async () => {
          const libraries = await this.store.libraries.list()
          return Promise.all(libraries.map(async (l) => toEntry(l, await this.store.libraries.versions(l.pk))))
        }),
      }
      this.building = building
      void building.entries.then(
        (entries) => {
          if (this.building !== building) return
          this.entries = entries
          this.builtAt = version
          this.building = undefined
        },
        () => {
          if (this.building === building) this.building = undefined
        },
      )
    }
    return this.building.entries
  }
}
