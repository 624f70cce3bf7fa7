/**
 * Teamspace policies, kept as JSON in `teams.policies` (migration 0014): null until a teamspace
 * sets one, which means the defaults (src/tenancy/policies.ts).
 */
import { parseStoredPolicy, type Policy } from '../tenancy/policies.js'
import type { Db } from './db.js'
import { VersionCache } from './version-cache.js'

export interface PoliciesRepository {
  /**
   * The teamspace's policy, the defaults when it set none; undefined when there is no such
   * teamspace. Given the request's catalogue version, read once per version (migration 0021).
   */
  of(teamPk: number, catalogVersion?: number): Policy | undefined
  set(teamPk: number, policy: Policy): void
}

export function createPoliciesRepository(db: Db): PoliciesRepository {
  const read = db.prepare<[number], { policies: string | null }>('SELECT policies FROM teams WHERE pk = ?')
  const write = db.prepare('UPDATE teams SET policies = ? WHERE pk = ?')
  const policies = new VersionCache<number, Policy>()
  return {
    of(teamPk, catalogVersion) {
      return policies.get(teamPk, catalogVersion, () => {
        const row = read.get(teamPk)
        return row && parseStoredPolicy(row.policies)
      })
    },
    set(teamPk, policy) {
      write.run(JSON.stringify(policy), teamPk)
    },
  }
}
