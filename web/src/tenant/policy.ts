/**
 * A teamspace policy as the policies API answers it (README "Cloud: private libraries and
 * policies"), and the PATCH that turns the saved policy into the one the editor shows: only the
 * fields that differ, lists as `add` / `remove`, so the server's own checks and normalising apply.
 */
export const SOURCE_TYPES = ['public_repos', 'private_sources', 'confluence', 'uploaded_files', 'websites', 'llmstxt'] as const
export type SourceType = (typeof SOURCE_TYPES)[number]

export const SOURCE_TYPE_LABELS: Record<SourceType, string> = {
  public_repos: 'Public repositories',
  private_sources: 'Private sources',
  confluence: 'Confluence',
  uploaded_files: 'Uploaded files',
  websites: 'Websites',
  llmstxt: 'llms.txt',
}

export type FilterMode = 'quality' | 'select' | null

export interface Policy {
  sourceTypes: Record<SourceType, { enabled: boolean }>
  libraryFilters: {
    mode: FilterMode
    quality: {
      requireVerified: boolean
      minTrustScore: number | null
      maxAgeDays: number | null
      blockedLibraries: string[]
      exceptedLibraries: string[]
      repoFilters: { minStars: number | null; allowedLicenses: string[] }
      websiteFilters: { minBacklinks: number | null; minReferringDomains: number | null; minOrganicTraffic: number | null }
    }
    select: { allowedLibraries: string[] }
  }
}

export interface PolicyView extends Policy {
  accessibleLibraryCount: number
}

/** The editable policy alone, without the server's count. */
export function policyOf({ sourceTypes, libraryFilters }: Policy): Policy {
  return structuredClone({ sourceTypes, libraryFilters })
}

type ListOperation = { add?: string[]; remove?: string[] }

function listChange(saved: string[], draft: string[]): ListOperation | undefined {
  const add = draft.filter((entry) => !saved.includes(entry))
  const remove = saved.filter((entry) => !draft.includes(entry))
  if (add.length === 0 && remove.length === 0) return undefined
  return { ...(add.length ? { add } : {}), ...(remove.length ? { remove } : {}) }
}

/** Drops the fields left undefined, and objects left empty by that. */
function compact(value: Record<string, unknown>): Record<string, unknown> | undefined {
  const kept = Object.entries(value).flatMap(([key, field]) => {
    const inner = field !== null && typeof field === 'object' && !Array.isArray(field) ? compact(field as Record<string, unknown>) : field
    return inner === undefined ? [] : [[key, inner] as const]
  })
  return kept.length ? Object.fromEntries(kept) : undefined
}

const changed = <T>(saved: T, draft: T): T | undefined => (saved === draft ? undefined : draft)

/** The PATCH body from `saved` to `draft`; undefined when they are the same. */
export function patchOf(saved: Policy, draft: Policy): Record<string, unknown> | undefined {
  const enable = SOURCE_TYPES.filter((t) => draft.sourceTypes[t].enabled && !saved.sourceTypes[t].enabled)
  const disable = SOURCE_TYPES.filter((t) => !draft.sourceTypes[t].enabled && saved.sourceTypes[t].enabled)
  const [s, d] = [saved.libraryFilters, draft.libraryFilters]
  return compact({
    sourceTypes: { enable: enable.length ? enable : undefined, disable: disable.length ? disable : undefined },
    libraryFilters: {
      mode: changed(s.mode, d.mode),
      quality: {
        requireVerified: changed(s.quality.requireVerified, d.quality.requireVerified),
        minTrustScore: changed(s.quality.minTrustScore, d.quality.minTrustScore),
        maxAgeDays: changed(s.quality.maxAgeDays, d.quality.maxAgeDays),
        blockedLibraries: listChange(s.quality.blockedLibraries, d.quality.blockedLibraries),
        exceptedLibraries: listChange(s.quality.exceptedLibraries, d.quality.exceptedLibraries),
        repoFilters: {
          minStars: changed(s.quality.repoFilters.minStars, d.quality.repoFilters.minStars),
          allowedLicenses: listChange(s.quality.repoFilters.allowedLicenses, d.quality.repoFilters.allowedLicenses),
        },
      },
      select: { allowedLibraries: listChange(s.select.allowedLibraries, d.select.allowedLibraries) },
    },
  })
}
