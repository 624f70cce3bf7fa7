/**
 * Libraries as the dashboard lists them: each with its state, the running job's progress, why it
 * failed, its versions and whether a refresh would be taken. State, totals and failures come
 * from the catalogue's summaries (search/libraries.ts), so they read as /api/v2/libs/search and
 * `lectern libraries list` show them; jobs are read live, since queueing one does not change the
 * catalogue. Nothing secret is in a row: no token, no connection, no credentials in a URL.
 */
import { canSeeJobDetails, type Caller } from './access.js'
import { refreshRefusal } from '../jobs/library-jobs.js'
import { unpinned } from './admin.js'
import { findLibrary, libraryNotFound } from '../search/resolve.js'
import type { CatalogueItem, LibraryCatalogue } from '../search/libraries.js'
import { redact } from '../sources/git.js'
import type { Store } from '../store/index.js'
import type { Job } from '../store/jobs.js'
import type { LibraryState, LibraryVersion } from '../store/libraries.js'

/** A version's stored state; `queued` while its job waits for the worker, `processing` while it runs. */
export type RowState = LibraryState | 'queued'

export interface LibraryRowVersion {
  tag: string
  state: RowState
  snippets: number
  tokens: number
  updatedAt: string
}

export interface LibraryRow {
  id: string
  title: string
  description: string
  sourceKind: string
  sourceUrl: string
  private: boolean
  /** The name of the teamspace whose private library it is (cloud); null for the install's own. */
  team: string | null
  imported: boolean
  /** The default version's. */
  state: RowState
  /** The running job's status message. */
  progress: string | null
  errorCode: string | null
  errorMessage: string | null
  snippets: number
  tokens: number
  updatedAt: string | null
  /** The tags, not the default version. */
  versions: LibraryRowVersion[]
  refreshable: boolean
  /** What a refresh would answer now, when it would be refused. */
  refreshBlockedReason: string | null
}

export interface LibraryPage {
  libraries: LibraryRow[]
  total: number
  page: number
  pageSize: number
}

export interface LibraryPageQuery {
  /** Matches the ID or the title, case-insensitively, anywhere in them. */
  q?: string
  /** 1-based. */
  page: number
  pageSize: number
}

function stateOf(version: LibraryVersion, active: Job | undefined): RowState {
  if (active?.state === 'queued') return 'queued'
  if (active?.state === 'running') return 'processing'
  return version.state
}

async function toRow(store: Store, item: CatalogueItem, caller: Caller): Promise<LibraryRow> {
  const { library, summary } = item
  const main = item.versions.find((v) => v.tag === '')
  const active = main && await store.jobs.activeForVersion(main.pk)
  const refusal = main && refreshRefusal(library, main, active)
  return {
    id: library.id,
    title: library.title,
    description: library.description,
    sourceKind: library.sourceKind,
    // Sources with credentials in their URL are refused when added; this keeps an older or
    // imported row from showing any.
    sourceUrl: redact(library.sourceUrl),
    private: library.isPrivate,
    team: library.teamPk === null ? null : ((await store.teams.byPk(library.teamPk))?.name ?? null),
    imported: library.isImported,
    state: main ? stateOf(main, active) : summary.state,
    progress: active?.state === 'running' && canSeeJobDetails(caller, library) ? active.statusMessage : null,
    errorCode: summary.failure?.error ?? null,
    errorMessage: summary.failure?.message ?? null,
    snippets: summary.totalSnippets,
    tokens: summary.totalTokens,
    updatedAt: summary.lastUpdateDate,
    versions: await Promise.all(
      item.versions
        .filter((v) => v.tag !== '')
        .map(async (v) => ({ tag: v.tag, state: stateOf(v, await store.jobs.activeForVersion(v.pk)), snippets: v.totalSnippets, tokens: v.totalTokens, updatedAt: v.updatedAt })),
    ),
    refreshable: refusal === undefined,
    refreshBlockedReason: refusal?.message ?? null,
  }
}

/** One page of the libraries the caller may see, ordered by ID, with how many match in all. */
export async function listLibraryRows(store: Store, catalogue: LibraryCatalogue, caller: Caller, query: LibraryPageQuery): Promise<LibraryPage> {
  const needle = query.q?.trim().toLowerCase() ?? ''
  const matching = (await catalogue
    .items({ caller }))
    .filter((item) => needle === '' || item.library.id.includes(needle) || item.library.title.toLowerCase().includes(needle))
  const start = (query.page - 1) * query.pageSize
  return {
    libraries: await Promise.all(matching.slice(start, start + query.pageSize).map((item) => toRow(store, item, caller))),
    total: matching.length,
    page: query.page,
    pageSize: query.pageSize,
  }
}

/** The row of one library; a moved ID answers 301 with the new one, as everywhere. */
export async function libraryRow(store: Store, catalogue: LibraryCatalogue, caller: Caller, rawId: string): Promise<LibraryRow> {
  const { library } = await findLibrary(store.libraries, unpinned(rawId, 'The ID'), caller)
  const item = (await catalogue.items({ caller })).find((i) => i.library.pk === library.pk)
  if (!item) throw libraryNotFound(library.id, caller)
  return await toRow(store, item, caller)
}
