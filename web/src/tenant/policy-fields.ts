/**
 * The policies form's own checks, the same the server makes (server/schemas/policies.ts,
 * src/tenancy/policy-entry.ts), so a bad value is marked at its field before any request, and
 * which field a refusal of the server names.
 */
import { policyEntry } from '../../../src/tenancy/policy-entry'
import type { Policy } from './policy'

export type PolicyField = 'minTrustScore' | 'maxAgeDays' | 'minStars' | 'blockedLibraries' | 'exceptedLibraries' | 'allowedLibraries'

export const FIELD_LABELS: Record<PolicyField, string> = {
  minTrustScore: 'Minimum trust score (0–10)',
  maxAgeDays: 'Indexed within (days)',
  minStars: 'Minimum stars (repositories)',
  blockedLibraries: 'Blocked libraries',
  exceptedLibraries: 'Excepted libraries',
  allowedLibraries: 'Allowed libraries',
}

/** Why a threshold is refused, or undefined; null (empty) is no threshold. */
function thresholdProblem(value: number | null, min: number, max: number | undefined, wanted: string): string | undefined {
  if (value === null) return undefined
  return Number.isInteger(value) && value >= min && (max === undefined || value <= max) ? undefined : wanted
}

/** The fields of the draft the server would refuse, with why. */
export function fieldErrors(draft: Policy): Partial<Record<PolicyField, string>> {
  const { quality } = draft.libraryFilters
  const problems: Partial<Record<PolicyField, string>> = {
    minTrustScore: thresholdProblem(quality.minTrustScore, 0, 10, 'A whole number from 0 to 10, or empty for none.'),
    maxAgeDays: thresholdProblem(quality.maxAgeDays, 1, undefined, 'A whole number of days, at least 1, or empty for none.'),
    minStars: thresholdProblem(quality.repoFilters.minStars, 0, undefined, 'A whole number, 0 or more, or empty for none.'),
  }
  return Object.fromEntries(Object.entries(problems).filter(([, problem]) => problem !== undefined))
}

/** Why Add refuses `text` for a list holding `entries`, or undefined when it may be added. */
export function entryProblem(text: string, entries: string[]): string | undefined {
  const entry = policyEntry(text)
  if (entry === undefined) return `"${text.trim()}" is neither a library path (/org or /org/repo) nor a domain (example.com).`
  return entries.includes(entry) ? `${entry} is in the list already.` : undefined
}

/** The field a refusal's message names (`Body libraryFilters.quality.minTrustScore must be…`, `"x" in blockedLibraries is…`). */
export function fieldOf(message: string): PolicyField | undefined {
  return (Object.keys(FIELD_LABELS) as PolicyField[]).find((field) => new RegExp(`\\b${field}\\b`).test(message))
}
