/**
 * A teamspace's libraries as its dashboard lists them: the teamspace's own (private) libraries,
 * and the public libraries its policy lets through, i.e. what the teamspace's keys find in search.
 * Each says whether it is the teamspace's own and whether its keys reach it now (a policy may turn
 * off the teamspace's own private sources too). Another teamspace's library and the install's own
 * private ones are never listed.
 */
import type { Caller } from '../library/access.js'
import type { CatalogueItem, LibraryCatalogue } from '../search/libraries.js'
import { isAllowed } from './policies.js'
import type { Policy } from '../store/policies.js'
import { policySubject } from '../library/visibility.js'

export interface TeamLibraryRow {
  id: string
  title: string
  sourceKind: string
  /** A private library of this teamspace. */
  owned: boolean
  /** Whether the teamspace's keys reach it under its policy. */
  allowed: boolean
  state: string
  snippets: number
  updatedAt: string | null
  errorCode: string | null
  errorMessage: string | null
}

function toRow(item: CatalogueItem, owned: boolean, allowed: boolean): TeamLibraryRow {
  const { library, summary } = item
  return {
    id: library.id,
    title: library.title,
    sourceKind: library.sourceKind,
    owned,
    allowed,
    state: summary.state,
    snippets: summary.totalSnippets,
    updatedAt: summary.lastUpdateDate,
    errorCode: summary.failure?.error ?? null,
    errorMessage: summary.failure?.message ?? null,
  }
}

/** `caller` is the signed-in member, who reads failures as a tenant does. */
export async function teamLibraries(catalogue: LibraryCatalogue, policy: Policy, teamPk: number, caller: Caller, now = Date.now()): Promise<TeamLibraryRow[]> {
  const rows: TeamLibraryRow[] = []
  for (const item of await catalogue.items({ caller })) {
    const { library } = item
    const owned = library.teamPk === teamPk
    if (!owned && (library.teamPk !== null || library.isPrivate)) continue
    const allowed = isAllowed(policy, policySubject(library, item.versions.find((v) => v.tag === '')), now)
    if (owned || allowed) rows.push(toRow(item, owned, allowed))
  }
  return rows
}

