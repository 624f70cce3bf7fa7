/**
 * The export/import payload (spec 2.6): `{libraries: ImportLibrary[], force?}` with the
 * element shape `ImportLibrary` of Context7's enterprise OpenAPI. Lectern adds optional fields
 * (`breadcrumb`, `pageTitle`, `source`, info `title`) so an import rebuilds exactly the
 * snippets the cloud serves; other producers may omit them. Snippet `id`s are the ordinal of
 * the snippet in its set, so an import stores them in the cloud's order.
 *
 * Validation is per library and complete before anything is stored: an invalid library is
 * reported with the reason and nothing of it is created. A library is judged field by field and
 * snippet by snippet (checkLibraryFields, checkSnippet), as payload-stream.ts reads it, so that
 * no library is ever held whole.
 */
import { z } from 'zod'
import { LecternError } from '../errors.js'
import { LIMITS } from '../index/build.js'
import { completeSnippet } from '../jobs/ingest.js'
import { parseLibraryId } from '../library/id.js'
import { codeListOf } from '../index/render.js'
import type { Library } from '../store/libraries.js'
import type { NewSnippet, StoredSnippet } from '../store/snippets.js'

/**
 * Characters of one snippet's text (code of all its alternatives, or prose). Ingest does not
 * split code blocks, so real exports hold code snippets of a few hundred kilobytes; the cap only
 * stops payloads built to exhaust memory.
 */
export const MAX_SNIPPET_CHARS = 1_000_000

const text = z.string()
const codeSnippetSchema = z
  .object({
    id: z.string().optional(),
    title: text,
    description: text.optional(),
    language: text.optional(),
    codeList: z.array(z.object({ language: text.optional(), code: text }).passthrough()).min(1),
    tokens: z.number().int().nonnegative().optional(),
    breadcrumb: text.optional(),
    pageTitle: text.optional(),
    source: text.optional(),
  })
  .passthrough()
const infoSnippetSchema = z
  .object({
    id: z.string().optional(),
    content: text.min(1),
    breadcrumb: text.optional(),
    tokens: z.number().int().nonnegative().optional(),
    title: text.optional(),
    pageTitle: text.optional(),
    source: text.optional(),
  })
  .passthrough()
const importLibrarySchema = z
  .object({
    project: text,
    title: text.optional(),
    description: text.optional(),
    type: text.optional(),
    language: text.optional(),
    branch: text.optional(),
    docsRepoUrl: text.optional(),
    docsSiteUrl: text.optional(),
    totalTokens: z.number().int().nonnegative().optional(),
    codeSnippets: z.array(codeSnippetSchema),
    infoSnippets: z.array(infoSnippetSchema),
  })
  .passthrough()

export type ImportLibrary = z.infer<typeof importLibrarySchema>
export type ImportCodeSnippet = z.infer<typeof codeSnippetSchema>
export type ImportInfoSnippet = z.infer<typeof infoSnippetSchema>

/** A library ready to store: its ID and what the catalogue shows. Its snippets are staged apart (staging.ts). */
export interface ValidLibrary {
  id: string
  title: string
  description: string
  sourceKind: string
  sourceUrl: string
  branch: string | null
}

export type SnippetList = 'codeSnippets' | 'infoSnippets'
export const SNIPPET_LISTS: ReadonlySet<string> = new Set<SnippetList>(['codeSnippets', 'infoSnippets'])

/** A snippet ready to store, with the ordinal its `id` gives it (NaN when it has none). */
export type CheckedSnippet = { ok: true; snippet: NewSnippet; order: number } | { ok: false; reason: string }
export type CheckedLibrary = { ok: true; library: ValidLibrary } | { ok: false; reason: string }

/** The project name to report for an element that may not even be an object. */
export const projectOf = (raw: unknown): string =>
  raw !== null && typeof raw === 'object' && typeof (raw as { project?: unknown }).project === 'string' ? (raw as { project: string }).project : '(no project)'

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * The first string anywhere in `root` that is not well-formed Unicode (a lone surrogate), as a
 * path. The walk keeps its own stack, so no nesting of the payload can overflow the call stack.
 */
function illFormedPath(root: unknown): string | undefined {
  const pending: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }]
  while (pending.length > 0) {
    const { value, path } = pending.pop()!
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value)) return path || 'value'
      continue
    }
    const children: Array<{ value: unknown; path: string }> = Array.isArray(value)
      ? value.map((child, i) => ({ value: child, path: `${path}[${i}]` }))
      : value !== null && typeof value === 'object'
        ? Object.entries(value).map(([key, child]) => ({ value: child, path: path ? `${path}.${key}` : key }))
        : []
    // Reversed onto the stack, so strings are met in document order.
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i])
  }
  return undefined
}

const ordinal = (id: string | undefined): number => (id !== undefined && /^\d{1,9}$/.test(id) ? Number(id) : Number.NaN)

const schemaFailure = (error: z.ZodError, prefix: Array<string | number> = []): string => {
  const issue = error.issues[0]
  return `invalid: field ${[...prefix, ...issue.path].join('.') || '(root)'}: ${issue.message}`
}

function codeToSnippet(s: ImportCodeSnippet): NewSnippet {
  const codeList = s.codeList.map((c) => ({ language: c.language || 'text', code: c.code }))
  return completeSnippet({
    kind: 'code',
    title: s.title,
    description: s.description ?? '',
    breadcrumb: s.breadcrumb ?? '',
    pageTitle: s.pageTitle ?? '',
    language: s.language || codeList[0].language,
    body: JSON.stringify(codeList),
    source: s.source ?? '',
  })
}

function infoToSnippet(s: ImportInfoSnippet): NewSnippet {
  return completeSnippet({
    kind: 'info',
    title: s.title ?? s.breadcrumb ?? '',
    description: '',
    breadcrumb: s.breadcrumb ?? '',
    pageTitle: s.pageTitle ?? '',
    language: '',
    body: s.content,
    source: s.source ?? '',
  })
}

/** Validates element `index` of a library's `list`; never throws for bad input, it says why instead. */
export function checkSnippet(list: SnippetList, index: number, raw: unknown): CheckedSnippet {
  return list === 'codeSnippets'
    ? checkAs(codeSnippetSchema, (s) => s.codeList.reduce((sum, c) => sum + c.code.length, 0), codeToSnippet, `${list}[${index}]`, [list, index], raw)
    : checkAs(infoSnippetSchema, (s) => s.content.length, infoToSnippet, `${list}[${index}]`, [list, index], raw)
}

/** One snippet by its list's rules: schema, well-formed text, at most MAX_SNIPPET_CHARS of text (`chars`). */
function checkAs<T extends { id?: string }>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, chars: (s: T) => number, toSnippet: (s: T) => NewSnippet, where: string, path: Array<string | number>, raw: unknown): CheckedSnippet {
  const fail = (reason: string): CheckedSnippet => ({ ok: false, reason })
  const parsed = schema.safeParse(raw)
  if (!parsed.success) return fail(schemaFailure(parsed.error, path))
  const bad = illFormedPath(parsed.data)
  if (bad) return fail(`invalid: ${where}.${bad} is not valid UTF-8 text (it holds a lone surrogate)`)
  const size = chars(parsed.data)
  if (size > MAX_SNIPPET_CHARS) return fail(`invalid: ${where} holds ${size} characters, over the cap of ${MAX_SNIPPET_CHARS}`)
  return { ok: true, snippet: toSnippet(parsed.data), order: ordinal(parsed.data.id) }
}

/**
 * Validates a library's fields other than its snippets, which checkSnippet has judged one by one:
 * `fields` holds an empty array for each snippet list that was an array, and `count` their
 * elements. Never throws for bad input, it says why instead.
 */
export function checkLibraryFields(fields: unknown, count: number): CheckedLibrary {
  const fail = (reason: string): CheckedLibrary => ({ ok: false, reason })
  const parsed = importLibrarySchema.safeParse(fields)
  if (!parsed.success) return fail(schemaFailure(parsed.error))
  const lib = parsed.data
  let id: string
  try {
    const ref = parseLibraryId(lib.project)
    if (ref.version !== undefined) return fail('invalid: a library ID with a version pin cannot be imported; export the library itself')
    id = ref.id
  } catch (err) {
    return fail(`invalid: ${(err as Error).message}`)
  }
  const bad = illFormedPath(lib)
  if (bad) return fail(`invalid: ${bad} is not valid UTF-8 text (it holds a lone surrogate)`)
  if (count === 0) return fail('invalid: the library has no snippets')
  if (count > LIMITS.maxSnippets) return fail(`invalid: ${count} snippets, over the cap of ${LIMITS.maxSnippets}`)
  return {
    ok: true,
    library: {
      id,
      title: lib.title || id.split('/')[2],
      description: lib.description ?? '',
      sourceKind: lib.type || 'import',
      sourceUrl: lib.docsRepoUrl || lib.docsSiteUrl || '',
      branch: lib.branch || null,
    },
  }
}

/** The refusals of a JSON body that is not the payload `{libraries: [...]}`, or holds no library (also read by payload-stream.ts). */
export const notAPayload = () => new LecternError('validation_error', 'The body must be {"libraries": [...], "force": false}: the export payload.')
export const noLibraries = () => new LecternError('validation_error', 'The payload holds no libraries.')

const GIT_TYPES = new Set(['github', 'gitlab', 'bitbucket', 'git'])

/** One library as an ImportLibrary element: every snippet of its live set, no embeddings. */
export function toImportLibrary(library: Library, snippets: StoredSnippet[], totalTokens: number): ImportLibrary {
  const code: ImportCodeSnippet[] = []
  const info: ImportInfoSnippet[] = []
  snippets.forEach((s, i) => {
    const common = { id: String(i), breadcrumb: s.breadcrumb, pageTitle: s.pageTitle, source: s.source, tokens: s.tokens }
    if (s.kind === 'code') code.push({ ...common, title: s.title, description: s.description, language: s.language, codeList: codeListOf(s).map((c) => ({ language: c.language, code: c.code })) })
    else info.push({ ...common, content: s.body, title: s.title })
  })
  return {
    project: library.id,
    title: library.title,
    description: library.description,
    type: library.sourceKind,
    language: 'English',
    ...(library.branch ? { branch: library.branch } : {}),
    ...(GIT_TYPES.has(library.sourceKind) ? { docsRepoUrl: library.sourceUrl } : { docsSiteUrl: library.sourceUrl }),
    totalTokens,
    codeSnippets: code,
    infoSnippets: info,
  }
}
