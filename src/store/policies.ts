/**
 * Teamspace policies, kept as JSON in `teams.policies` (migration 0014): null until a teamspace
 * sets one, which means the defaults (src/tenancy/policies.ts).
 */
import { parseStoredPolicy, type Policy } from '../tenancy/policies.js'
import type { Db } from './db.js'

export interface PoliciesRepository {
  /** The teamspace's policy, the defaults when it set none; undefined when there is no such teamspace. */
  of(teamPk: number): Policy | undefined
  set(teamPk: number, policy: Policy): void
}

export function createPoliciesRepository(db: Db): PoliciesRepository {
  const read = db.prepare<[number], { policies: string | null }>('SELECT policies FROM teams WHERE pk = ?')
  const write = db.prepare('UPDATE teams SET policies = ? WHERE pk = ?')
  return {
    of(teamPk) {
      const row = read.get(teamPk)
      return row && parseStoredPolicy(row.policies)
    },
    set(teamPk, policy) {
      write.run(JSON.stringify(policy), teamPk)
    },
  }
}
