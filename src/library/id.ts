/**
 * Library IDs (spec 2.1): `/<owner>/<repo>` for every git host, `/websites/<name>`,
 * `/llmstxt/<source>`, `/packages/<name>`, `/npm/<name>`, `/docs/<name>`, each optionally pinned
 * to a version as `/<owner>/<repo>/<version>` or `/<owner>/<repo>@<version>`.
 *
 * The base ID is case-insensitive (git hosts are) and stored lowercase; a version tag is kept
 * as written because tags are case-sensitive.
 */
import { LecternError } from '../errors.js'

export interface LibraryRef {
  /** Normalised base ID without the version: `/owner/repo`. */
  id: string
  owner: string
  name: string
  /** The pinned version tag, when one was given. */
  version?: string
}

const MAX_ID_LENGTH = 500
const SEGMENT = /^[a-z0-9_][a-z0-9._-]{0,99}$/
const VERSION = /^[A-Za-z0-9_][A-Za-z0-9._+-]{0,99}$/

/** Source namespaces whose names are not git owners; listed so callers can tell them apart. */
export const SOURCE_NAMESPACES = ['websites', 'llmstxt', 'packages', 'npm', 'docs'] as const

function invalid(raw: string, why: string): LecternError {
  const shown = raw.length > 80 ? `${raw.slice(0, 80)}...` : raw
  return new LecternError(
    'invalid_library_id',
    `Invalid library ID "${shown}": ${why}. Expected /owner/repo, optionally pinned as /owner/repo/version or /owner/repo@version.`,
  )
}

/** Whether `value` is one segment of a library ID (already lowercase). */
export function isSegment(value: string): boolean {
  return SEGMENT.test(value) && value !== '.' && value !== '..' && !value.endsWith('.')
}

export function isValidVersion(value: string): boolean {
  return VERSION.test(value) && !value.includes('..')
}

/** Parses a library ID (leading slash optional); throws `invalid_library_id` for anything else. */
export function parseLibraryId(raw: string): LibraryRef {
  if (typeof raw !== 'string' || raw.trim() === '') throw invalid(String(raw ?? ''), 'it is empty')
  if (raw.length > MAX_ID_LENGTH) throw invalid(raw, `it is longer than ${MAX_ID_LENGTH} characters`)
  const trimmed = raw.trim()
  const path = trimmed.startsWith('/') ? trimmed.slice(1) : trimmed
  const parts = path.split('/')
  let version: string | undefined
  if (parts.length === 3) {
    version = parts.pop()
  } else if (parts.length === 2 && parts[1].includes('@')) {
    const at = parts[1].indexOf('@')
    version = parts[1].slice(at + 1)
    parts[1] = parts[1].slice(0, at)
  } else if (parts.length !== 2) {
    throw invalid(raw, 'it must have two path segments')
  }
  const [owner, name] = parts.map((p) => p.toLowerCase())
  if (!isSegment(owner) || !isSegment(name)) {
    throw invalid(raw, 'segments may hold only letters, digits, ".", "_" and "-"')
  }
  if (version !== undefined && !isValidVersion(version)) {
    throw invalid(raw, 'the version may hold only letters, digits, ".", "_", "+" and "-"')
  }
  return { id: `/${owner}/${name}`, owner, name, ...(version === undefined ? {} : { version }) }
}

/** Formats a ref back to an ID; `@` form for pins, the one most clients print. */
export function formatLibraryId(ref: Pick<LibraryRef, 'id' | 'version'>, pinForm: 'at' | 'slash' = 'at'): string {
  if (!ref.version) return ref.id
  return pinForm === 'at' ? `${ref.id}@${ref.version}` : `${ref.id}/${ref.version}`
}

/** Turns arbitrary text (a site name, a title) into a valid ID segment. */
export function slugifySegment(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .replace(/-{2,}/g, '-')
    .slice(0, 100)
    .replace(/[-.]+$/g, '')
  return slug === '' ? 'library' : slug
}
