/**
 * The GitOps manifest (Context7's enterprise/gitops.mdx format): `repos.yaml` in a git
 * repository, a list of sources under `repos` and an optional `defaults` block that applies to
 * every entry whose type has the field. An entry's `type` (git when omitted) selects its fields:
 *
 * | type       | fields |
 * | git        | branch, folders, excludeFolders, excludeFiles, indexSourceCode |
 * | confluence | spaceKey (with spaceId and spaceName, which the key decides), or pageUrls (with includeSubPages); title, description |
 * | website    | maxPages, maxDepth, excludePatterns, title, description |
 * | llmstxt    | maxPages, title, description |
 * | openapi    | title, description |
 *
 * Validation is strict and whole: an unknown type, a field that does not belong to the entry's
 * type, a missing required one, or two entries for one library reject the manifest, and a sync
 * changes nothing. Fields of the reference that Lectern cannot honour yet are refused by name
 * rather than ignored, so no entry silently means less than it says.
 */
import { createHash } from 'node:crypto'
import YAML from 'yaml'
import { z } from 'zod'
import { LecternError } from '../errors.js'

export const MANIFEST_TYPES = ['git', 'confluence', 'website', 'llmstxt', 'openapi'] as const
export type ManifestType = (typeof MANIFEST_TYPES)[number]

const names = z.array(z.string().trim().min(1).max(500)).max(500)
const text = (max: number) => z.string().trim().min(1).max(max)

const FIELDS = {
  git: { branch: z.string().trim().max(250), folders: names, excludeFolders: names, excludeFiles: names, indexSourceCode: z.boolean() },
  confluence: { spaceKey: text(255), spaceId: text(100), spaceName: text(255), pageUrls: z.array(z.string().url()).min(1).max(1000), includeSubPages: z.boolean(), title: text(100), description: text(500) },
  website: { maxPages: z.number().int().min(1).max(10_000), maxDepth: z.number().int().min(0).max(20), excludePatterns: names, title: text(100), description: text(500) },
  llmstxt: { maxPages: z.number().int().min(1).max(10_000), title: text(100), description: text(500) },
  openapi: { title: text(100), description: text(500) },
} satisfies Record<ManifestType, z.ZodRawShape>

/** Fields of the reference's format that Lectern's readers do not honour yet, with what to do instead. */
const NOT_YET: Partial<Record<ManifestType, Record<string, (value: unknown) => boolean>>> = {
  website: { excludePatterns: (value) => Array.isArray(value) && value.length > 0 },
  confluence: { pageUrls: (value) => value !== undefined, includeSubPages: (value) => value === true },
}

/** One entry, defaults applied: its type, URL and fields. */
export interface ManifestEntry {
  type: ManifestType
  url: string
  fields: Record<string, unknown>
  /** Where it is in the file, for messages: `repos[2]`. */
  at: string
  /** sha256 of what the entry says: a change re-indexes its library. */
  fingerprint: string
}

const entrySchema = (type: ManifestType) =>
  z
    .object({ type: z.literal(type).optional(), url: text(2000).optional(), repoUrl: text(2000).optional(), ...FIELDS[type] })
    .partial()
    .strict()

const ALL_FIELDS = new Set(Object.values(FIELDS).flatMap((fields) => Object.keys(fields)))

const ManifestSchema = z
  .object({
    defaults: z.record(z.unknown()).default({}),
    repos: z.array(z.record(z.unknown())).max(5000),
  })
  .strict()

function invalid(message: string): LecternError {
  return new LecternError('validation_error', `The manifest is not valid, so nothing was changed: ${message}.`)
}

const issueText = (issue: z.ZodIssue, at: string): string => {
  const where = [at, ...issue.path.map(String)].filter(Boolean).join('.') || 'the manifest'
  if (issue.code === 'unrecognized_keys') return `${where}: ${issue.keys.map((key) => `"${key}"`).join(', ')} ${issue.keys.length === 1 ? 'is' : 'are'} not a field ${at === '' ? 'of a manifest (defaults, repos)' : 'of this type'}`
  return `${where}: ${issue.message}`
}

/** Parses and checks a manifest's text (YAML); every problem is named with its place, and the first few are said. */
export function parseManifest(source: string): ManifestEntry[] {
  let raw: unknown
  try {
    raw = YAML.parse(source, { maxAliasCount: 100 })
  } catch (err) {
    throw invalid(`it is not YAML (${(err as Error).message.split('\n')[0]})`)
  }
  const parsed = ManifestSchema.safeParse(raw ?? {})
  if (!parsed.success) throw invalid(parsed.error.issues.slice(0, 5).map((issue) => issueText(issue, '')).join('; '))
  const problems: string[] = []
  const unknownDefaults = Object.keys(parsed.data.defaults).filter((key) => !ALL_FIELDS.has(key))
  if (unknownDefaults.length > 0) problems.push(`defaults: ${unknownDefaults.map((key) => `"${key}"`).join(', ')} is no field of any type`)
  const entries: ManifestEntry[] = []
  parsed.data.repos.forEach((rawEntry, index) => {
    const at = `repos[${index}]`
    const type = rawEntry.type ?? 'git'
    if (!(MANIFEST_TYPES as readonly unknown[]).includes(type)) {
      problems.push(`${at}.type: "${String(type)}" is not a type; expected ${MANIFEST_TYPES.join(', ')}`)
      return
    }
    const known = type as ManifestType
    const defaults = Object.fromEntries(Object.entries(parsed.data.defaults).filter(([key]) => key in FIELDS[known]))
    const checked = entrySchema(known).safeParse({ ...defaults, ...rawEntry })
    if (!checked.success) {
      problems.push(...checked.error.issues.map((issue) => issueText(issue, at)))
      return
    }
    const { type: _, url, repoUrl, ...fields } = checked.data as Record<string, unknown> & { url?: string; repoUrl?: string }
    const problem = entryProblem(known, url, repoUrl, fields)
    if (problem) {
      problems.push(`${at}: ${problem}`)
      return
    }
    const address = (url ?? repoUrl)!
    entries.push({ type: known, url: address, fields, at, fingerprint: createHash('sha256').update(JSON.stringify([known, address, sorted(fields)])).digest('hex') })
  })
  if (problems.length > 0) throw invalid(`${problems.slice(0, 10).join('; ')}${problems.length > 10 ? `; and ${problems.length - 10} more` : ''}`)
  return entries
}

function entryProblem(type: ManifestType, url: string | undefined, repoUrl: string | undefined, fields: Record<string, unknown>): string | undefined {
  if (url === undefined && repoUrl === undefined) return 'needs a url (or repoUrl)'
  if (url !== undefined && repoUrl !== undefined) return 'has both url and repoUrl; give one'
  for (const [field, used] of Object.entries(NOT_YET[type] ?? {})) {
    if (used(fields[field])) return `${field} is not supported by Lectern yet; leave it out`
  }
  if (type === 'confluence') {
    const bySpace = fields.spaceKey !== undefined
    const byPages = fields.pageUrls !== undefined
    if (bySpace === byPages) return 'a confluence entry takes spaceKey or pageUrls, one of them'
    if (!bySpace && (fields.spaceName !== undefined || fields.spaceId !== undefined)) return 'spaceId and spaceName go with spaceKey'
  }
  return undefined
}

const sorted = (fields: Record<string, unknown>): Array<[string, unknown]> => Object.entries(fields).sort(([a], [b]) => a.localeCompare(b))
