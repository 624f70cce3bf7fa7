/**
 * Teamspace policies, kept as JSON in `teams.policies` (migration 0014): null until a teamspace
 * sets one, which means the defaults. Here: the stored shape and the defaults; what a policy
 * allows and how a PATCH changes it is src/tenancy/policies.ts.
 */
import type { Sql } from './sql.js'
import { VersionCache } from './version-cache.js'

export const SOURCE_TYPES = ['public_repos', 'private_sources', 'confluence', 'uploaded_files', 'websites', 'llmstxt'] as const
export type SourceType = (typeof SOURCE_TYPES)[number]

export type FilterMode = 'quality' | 'select' | null

export interface QualityFilters {
  requireVerified: boolean
  minTrustScore: number | null
  maxAgeDays: number | null
  blockedLibraries: string[]
  exceptedLibraries: string[]
  repoFilters: { minStars: number | null; allowedLicenses: string[] }
  websiteFilters: { minBacklinks: number | null; minReferringDomains: number | null; minOrganicTraffic: number | null }
}

export interface Policy {
  sourceTypes: Record<SourceType, { enabled: boolean }>
  libraryFilters: { mode: FilterMode; quality: QualityFilters; select: { allowedLibraries: string[] } }
}

/** All source types on, no library filter: what a teamspace has until it sets a policy. */
export function defaultPolicy(): Policy {
  return {
    sourceTypes: Object.fromEntries(SOURCE_TYPES.map((type) => [type, { enabled: true }])) as Policy['sourceTypes'],
    libraryFilters: {
      mode: null,
      quality: {
        requireVerified: false,
        minTrustScore: null,
        maxAgeDays: null,
        blockedLibraries: [],
        exceptedLibraries: [],
        repoFilters: { minStars: null, allowedLicenses: [] },
        websiteFilters: { minBacklinks: null, minReferringDomains: null, minOrganicTraffic: null },
      },
      select: { allowedLibraries: [] },
    },
  }
}

/** A stored policy (teams.policies JSON) over the defaults, so fields added later get theirs. */
export function parseStoredPolicy(json: string | null): Policy {
  const defaults = defaultPolicy()
  if (json === null) return defaults
  const stored = JSON.parse(json) as Partial<Policy>
  const filters: Partial<Policy['libraryFilters']> = stored.libraryFilters ?? {}
  const quality: Partial<QualityFilters> = filters.quality ?? {}
  return {
    sourceTypes: { ...defaults.sourceTypes, ...stored.sourceTypes },
    libraryFilters: {
      mode: filters.mode ?? null,
      quality: {
        ...defaults.libraryFilters.quality,
        ...quality,
        repoFilters: { ...defaults.libraryFilters.quality.repoFilters, ...quality.repoFilters },
        websiteFilters: { ...defaults.libraryFilters.quality.websiteFilters, ...quality.websiteFilters },
      },
      select: { ...defaults.libraryFilters.select, ...filters.select },
    },
  }
}

export interface PoliciesRepository {
  /**
   * The teamspace's policy, the defaults when it set none; undefined when there is no such
   * teamspace. Given the request's catalogue version, read once per version (migration 0021).
   */
  of(teamPk: number, catalogVersion?: number): Promise<Policy | undefined>
  set(teamPk: number, policy: Policy): Promise<void>
  /** Reads the teamspace's policy, changes it with `change` and writes it, in one transaction; undefined when there is no such teamspace. */
  update(teamPk: number, change: (policy: Policy) => Policy): Promise<Policy | undefined>
}

export function createPoliciesRepository(sql: Sql): PoliciesRepository {
  const policies = new VersionCache<number, Policy>()
  return {
    of(teamPk, catalogVersion) {
      return policies.get(teamPk, catalogVersion, async () => {
        const row = await sql.get<{ policies: string | null }>('SELECT policies FROM teams WHERE pk = ?', [teamPk])
        return row && parseStoredPolicy(row.policies)
      })
    },
    async set(teamPk, policy) {
      await sql.run('UPDATE teams SET policies = ? WHERE pk = ?', [JSON.stringify(policy), teamPk])
    },
    update: (teamPk, change) =>
      sql.transaction(async () => {
        const row = await sql.get<{ policies: string | null }>('SELECT policies FROM teams WHERE pk = ?', [teamPk])
        if (!row) return undefined
        const next = change(parseStoredPolicy(row.policies))
        await sql.run('UPDATE teams SET policies = ? WHERE pk = ?', [JSON.stringify(next), teamPk])
        return next
      }),
  }
}
