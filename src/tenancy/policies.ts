/**
 * Teamspace policies (Context7's `howto/policies.mdx`, openapi.json PolicyResponse and
 * PatchPoliciesRequest): which source types and which public libraries a teamspace's keys reach.
 * Pure: a PATCH applied to a policy, and whether a library passes one (the stored shape and the
 * defaults: src/store/policies.ts).
 *
 * Source types: git libraries are `public_repos`, or `private_sources` when private; an OpenAPI
 * upload is `uploaded_files` and an OpenAPI spec by URL `websites`; `website` is `websites`,
 * `llmstxt` is `llmstxt`, `confluence` is `confluence`; Notion pages, a connected private source
 * the reference has no type of its own for, are `private_sources`; imported libraries (on-premise
 * copies of public cloud ones) are `public_repos`.
 *
 * Library filters decide which public libraries pass; a teamspace's own private libraries answer
 * only to the source types. Quality data Lectern has: the trust score, freshness (when the default
 * version was last indexed). Lectern verifies no library, so `requireVerified` leaves only the
 * excepted ones. Data Lectern does not have (stars, licenses, backlinks, referring domains,
 * traffic) is unknown, and an unknown value never clears a threshold that is set: a library passes
 * a filter only when it is shown to. An unset threshold (null, or an empty license list) filters
 * nothing, and a repo filter concerns repositories only, a website filter websites only.
 */
import { LecternError } from '../errors.js'
import { SOURCE_TYPES, type FilterMode, type Policy, type QualityFilters, type SourceType } from '../store/policies.js'
import { policyEntry } from './policy-entry.js'

export interface ListOperation {
  add?: string[]
  remove?: string[]
  clear?: boolean
}

export interface PolicyPatch {
  sourceTypes?: { enable?: SourceType[]; disable?: SourceType[] }
  libraryFilters?: {
    mode?: FilterMode
    quality?: {
      requireVerified?: boolean
      minTrustScore?: number | null
      maxAgeDays?: number | null
      blockedLibraries?: ListOperation
      exceptedLibraries?: ListOperation
      repoFilters?: { minStars?: number | null; allowedLicenses?: ListOperation }
      websiteFilters?: { minBacklinks?: number | null; minReferringDomains?: number | null; minOrganicTraffic?: number | null }
    }
    select?: { allowedLibraries?: ListOperation }
  }
}

/** A library as a policy sees it. */
export interface PolicySubject {
  id: string
  sourceKind: string
  sourceUrl: string
  isPrivate: boolean
  teamPk: number | null
  trustScore: number
  /** When its default version was last indexed; null when it never was. */
  indexedAt: string | null
}

/** Entries a list may hold, so a stored policy stays small. */
export const MAX_LIST_ENTRIES = 1000

/** Whether a policy filters nothing, so requests under it need no check. */
export function isOpen(policy: Policy): boolean {
  return policy.libraryFilters.mode === null && SOURCE_TYPES.every((type) => policy.sourceTypes[type].enabled)
}

/** A list entry as stored: a library path (`/org` or `/org/repo`) or a domain, lower case. */
function normaliseEntry(raw: string, list: string): string {
  const entry = policyEntry(raw)
  if (entry !== undefined) return entry
  throw new LecternError('validation_error', `"${raw}" in ${list} is neither a library path (/org or /org/repo) nor a domain (example.com).`)
}

const normaliseLicense = (raw: string) => raw.trim()

function applyList(current: string[], operation: ListOperation | undefined, list: string, normalise: (raw: string) => string): string[] {
  if (!operation) return current
  const { add = [], remove = [], clear } = operation
  if (clear && (add.length > 0 || remove.length > 0)) throw new LecternError('validation_error', `${list}: "clear" cannot be used together with "add" or "remove".`)
  if (clear) return []
  const added = add.map(normalise)
  const removed = new Set(remove.map(normalise))
  const both = added.filter((entry) => removed.has(entry))
  if (both.length > 0) throw new LecternError('validation_error', `${list}: ${both.join(', ')} cannot be both added and removed.`)
  const next = [...new Set([...current, ...added])].filter((entry) => !removed.has(entry))
  if (next.length > MAX_LIST_ENTRIES) throw new LecternError('validation_error', `${list} may hold at most ${MAX_LIST_ENTRIES} entries.`)
  return next
}

/** Takes the patch's value of a field when it names one (null included), else keeps the current one. */
const pick = <T>(patched: T | undefined, current: T): T => (patched === undefined ? current : patched)

/** The policy after an incremental PATCH: only the fields the patch names change. */
export function applyPatch(policy: Policy, patch: PolicyPatch): Policy {
  const enable = patch.sourceTypes?.enable ?? []
  const disable = patch.sourceTypes?.disable ?? []
  const both = enable.filter((type) => disable.includes(type))
  if (both.length > 0) throw new LecternError('validation_error', `sourceTypes: ${both.join(', ')} cannot be both enabled and disabled.`)
  const sourceTypes = { ...policy.sourceTypes }
  for (const type of enable) sourceTypes[type] = { enabled: true }
  for (const type of disable) sourceTypes[type] = { enabled: false }

  const filters = patch.libraryFilters ?? {}
  const q = filters.quality ?? {}
  const current = policy.libraryFilters.quality
  const quality: QualityFilters = {
    requireVerified: pick(q.requireVerified, current.requireVerified),
    minTrustScore: pick(q.minTrustScore, current.minTrustScore),
    maxAgeDays: pick(q.maxAgeDays, current.maxAgeDays),
    blockedLibraries: applyList(current.blockedLibraries, q.blockedLibraries, 'blockedLibraries', (e) => normaliseEntry(e, 'blockedLibraries')),
    exceptedLibraries: applyList(current.exceptedLibraries, q.exceptedLibraries, 'exceptedLibraries', (e) => normaliseEntry(e, 'exceptedLibraries')),
    repoFilters: {
      minStars: pick(q.repoFilters?.minStars, current.repoFilters.minStars),
      allowedLicenses: applyList(current.repoFilters.allowedLicenses, q.repoFilters?.allowedLicenses, 'allowedLicenses', normaliseLicense),
    },
    websiteFilters: {
      minBacklinks: pick(q.websiteFilters?.minBacklinks, current.websiteFilters.minBacklinks),
      minReferringDomains: pick(q.websiteFilters?.minReferringDomains, current.websiteFilters.minReferringDomains),
      minOrganicTraffic: pick(q.websiteFilters?.minOrganicTraffic, current.websiteFilters.minOrganicTraffic),
    },
  }
  const allowedLibraries = applyList(policy.libraryFilters.select.allowedLibraries, filters.select?.allowedLibraries, 'allowedLibraries', (e) => normaliseEntry(e, 'allowedLibraries'))
  return { sourceTypes, libraryFilters: { mode: pick(filters.mode, policy.libraryFilters.mode), quality, select: { allowedLibraries } } }
}

const GIT_KINDS = new Set(['github', 'gitlab', 'bitbucket', 'git', 'import'])

export function sourceTypeOf(subject: Pick<PolicySubject, 'sourceKind' | 'sourceUrl' | 'isPrivate' | 'teamPk'>): SourceType {
  const isPrivate = subject.isPrivate || subject.teamPk !== null
  switch (subject.sourceKind) {
    case 'openapi':
      return subject.sourceUrl.startsWith('upload:') ? 'uploaded_files' : 'websites'
    case 'website':
      return 'websites'
    case 'llmstxt':
      return 'llmstxt'
    case 'confluence':
      return 'confluence'
    case 'notion':
      return 'private_sources'
    default:
      return GIT_KINDS.has(subject.sourceKind) && !isPrivate ? 'public_repos' : 'private_sources'
  }
}

function hostOf(sourceUrl: string): string | undefined {
  try {
    return new URL(sourceUrl).hostname.toLowerCase() || undefined
  } catch {
    return undefined
  }
}

/** Whether a list entry names the library: its ID, its owner (`/org`), or the domain of its source. */
export function matchesEntry(entry: string, subject: Pick<PolicySubject, 'id' | 'sourceUrl'>): boolean {
  if (entry.startsWith('/')) return subject.id === entry || subject.id.startsWith(`${entry}/`)
  const host = hostOf(subject.sourceUrl)
  return host !== undefined && (host === entry || host.endsWith(`.${entry}`))
}

const DAY_MS = 24 * 60 * 60 * 1000

function clearsQuality(quality: QualityFilters, subject: PolicySubject, type: SourceType, now: number): boolean {
  if (quality.blockedLibraries.some((entry) => matchesEntry(entry, subject))) return false
  // Lectern verifies no library.
  if (quality.requireVerified) return false
  if (quality.minTrustScore !== null && subject.trustScore < quality.minTrustScore) return false
  if (quality.maxAgeDays !== null) {
    const indexed = subject.indexedAt === null ? NaN : Date.parse(subject.indexedAt)
    if (!(now - indexed <= quality.maxAgeDays * DAY_MS)) return false
  }
  // Stars and licenses of repositories, and the web metrics of websites, are unknown here.
  const { repoFilters, websiteFilters } = quality
  if (type === 'public_repos' && (repoFilters.minStars !== null || repoFilters.allowedLicenses.length > 0)) return false
  if (type === 'websites' && Object.values(websiteFilters).some((threshold) => threshold !== null)) return false
  return true
}

/** Whether a library the caller may see passes the policy. */
export function isAllowed(policy: Policy, subject: PolicySubject, now = Date.now()): boolean {
  const { mode, quality, select } = policy.libraryFilters
  const isPublic = !subject.isPrivate && subject.teamPk === null
  // Excepted libraries bypass every filter, the source types included (PolicyResponse).
  if (isPublic && mode === 'quality' && quality.exceptedLibraries.some((entry) => matchesEntry(entry, subject))) return true
  const type = sourceTypeOf(subject)
  if (!policy.sourceTypes[type].enabled) return false
  if (!isPublic || mode === null) return true
  if (mode === 'select') return select.allowedLibraries.some((entry) => matchesEntry(entry, subject))
  return clearsQuality(quality, subject, type, now)
}

/** accessibleLibraryCount: the public libraries the policy lets through. */
export function countAccessible(policy: Policy, subjects: readonly PolicySubject[], now = Date.now()): number {
  return subjects.filter((subject) => !subject.isPrivate && subject.teamPk === null && isAllowed(policy, subject, now)).length
}
