/**
 * What docs sites pull in from other files of their repository: code examples kept as real
 * source files (`docs_src/tutorial001.py`), shared Markdown fragments. The reader of the
 * rendered page sees them inline, so the parsers inline them too, through the repository reader
 * a source hands them (`IncludeReader`), never the file system: a path that leaves the
 * repository, or a file that is missing or too big, is skipped with a logged reason.
 *
 * This module holds the syntax-independent part: resolving a path against the including page,
 * the language of a file, and the selections every dialect offers (line ranges, named regions,
 * Python objects, start/end markers).
 */
import path from 'node:path/posix'
import { normalizeLanguage } from './blocks.js'
import type { IncludeReader } from './types.js'
import { append, minOf } from '../text/arrays.js'

/** How deep includes may nest (a fragment that includes a fragment...); deeper ones are skipped. */
export const MAX_INCLUDE_DEPTH = 4

/**
 * The repository path a reference names from a folder, or undefined when it leaves the
 * repository. `base` is a repository folder ('' for the root).
 */
function resolveFrom(base: string, reference: string): string | undefined {
  const normal = path.normalize(path.join(base, reference))
  if (normal === '..' || normal.startsWith('../') || path.isAbsolute(normal)) return undefined
  return normal
}

const isWithin = (folder: string, file: string): boolean => folder === '' || file.startsWith(`${folder}/`)

/**
 * Every repository path an include path may name, in the order the docs generators look: the
 * page's folder; the site folders (`siteRoots`: config folders, configured base paths, docs
 * folders), those of the site holding the page first; the page's other ancestor folders, for a
 * site whose config file the checkout lacks; then the repository root. FastAPI's
 * `{* ../../docs_src/x.py *}` in `docs/en/docs/tutorial/cors.md` is relative to `docs/en`, the
 * folder of its mkdocs.yml. `@/x` and `/x` start at the site folders, then the root (VitePress's
 * srcDir, Sphinx's source directory). Only paths inside the repository are named.
 */
export function includeCandidates(fromDoc: string, reference: string, siteRoots: readonly string[] = []): string[] {
  const ref = reference.trim().replace(/\\/g, '/')
  if (ref === '' || /^[a-z][a-z0-9+.-]*:/i.test(ref)) return []
  const rooted = /^@?\//.exec(ref)
  const relative = rooted ? ref.slice(rooted[0].length) : ref
  const page = path.dirname(fromDoc) === '.' ? '' : path.dirname(fromDoc)
  const holding = siteRoots.filter((root) => isWithin(root, fromDoc))
  const others = siteRoots.filter((root) => !isWithin(root, fromDoc))
  const bases = rooted ? [...holding, ...others, ''] : [page, ...holding, ...others, ...ancestors(page), '']
  const candidates = bases.map((base) => resolveFrom(base, relative)).filter((c): c is string => c !== undefined)
  return [...new Set(candidates)]
}

/** The folders above `folder`, nearest first, without the root. */
export function ancestors(folder: string): string[] {
  const found: string[] = []
  for (let at = path.dirname(folder); folder !== '' && at !== '.'; at = path.dirname(at)) found.push(at)
  return found
}

/**
 * The repository paths an import specifier may name: relative to the page, or through the site's
 * aliases (`@mdx/x.mdx` with `"@mdx/*": ["src/mdx/*"]`). Bare package names name no repository
 * file. Imports follow the bundler's rules, not the include directives' search.
 */
export function moduleCandidates(fromDoc: string, specifier: string, aliases: Array<{ pattern: string; targets: string[] }> = []): string[] {
  if (specifier.startsWith('./') || specifier.startsWith('../')) return [resolveFrom(path.dirname(fromDoc), specifier)].filter((c): c is string => c !== undefined)
  const candidates: string[] = []
  for (const { pattern, targets } of aliases) {
    const star = pattern.indexOf('*')
    const prefix = star === -1 ? pattern : pattern.slice(0, star)
    const suffix = star === -1 ? '' : pattern.slice(star + 1)
    if (star === -1 ? specifier !== pattern : !(specifier.startsWith(prefix) && specifier.endsWith(suffix))) continue
    const captured = star === -1 ? '' : specifier.slice(prefix.length, specifier.length - suffix.length)
    for (const target of targets) {
      const candidate = resolveFrom('', target.replace('*', captured))
      if (candidate !== undefined) candidates.push(candidate)
    }
  }
  return candidates
}

/**
 * Whether a text has an include directive of any syntax, for the depth limit: a file at the limit
 * that includes nothing loses nothing.
 */
export const mentionsInclude = (text: string): boolean => /--8<--|\{\*\s|<<<\s|@include:|\{\{#(?:include|rustdoc_include|playground)|^include::|::\s*(?:literal)?include|\{%-?\s*include|\{\{[<%]\s*(?:include|readfile)|!!?raw-loader!|\bfrom\s+['"][^'"]+\.mdx?['"]/m.test(text)

/** Where a directive is written: the file holding it (a page or a fragment it included) and its 1-based line. */
export interface DirectiveAt {
  page: string
  line: number
}

/** What a selection made of an included file's text: the part shown, or why nothing can be. */
export type Selected = string | { problem: string }

/**
 * Reads an include: the first candidate that is a readable repository file, its text through
 * `select` (a line range, a region...). Records the directive's outcome once, with the paths
 * tried when nothing could be read; undefined then.
 */
export function readInclude(
  reader: IncludeReader,
  at: DirectiveAt,
  reference: string,
  candidates: readonly string[],
  select: (text: string, file: string) => Selected = (text) => text,
): { path: string; text: string } | undefined {
  let refusal: string | undefined
  for (const candidate of candidates) {
    const read = reader.readFile(candidate)
    if (read === undefined) continue
    if (typeof read !== 'string') {
      refusal ??= `${candidate}: ${read.skipped}`
      continue
    }
    const selected = select(read.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'), candidate)
    if (typeof selected !== 'string') {
      reader.record({ ...at, reference, resolved: candidate, problem: selected.problem })
      return undefined
    }
    reader.record({ ...at, reference, resolved: candidate })
    return { path: candidate, text: selected }
  }
  const problem = candidates.length === 0 ? 'points outside the repository' : (refusal ?? 'not found')
  reader.record({ ...at, reference, problem, ...(candidates.length > 0 ? { tried: [...candidates] } : {}) })
  return undefined
}

const EXTENSION_LANGUAGES: Record<string, string> = {
  py: 'python',
  pyi: 'python',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'jsx',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  vue: 'vue',
  svelte: 'svelte',
  astro: 'astro',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'toml',
  json: 'json',
  jsonc: 'json',
  md: 'markdown',
  mdx: 'mdx',
  rst: 'rst',
  html: 'html',
  css: 'css',
  scss: 'scss',
  sql: 'sql',
  prisma: 'prisma',
  graphql: 'graphql',
  go: 'go',
  rs: 'rust',
  rb: 'ruby',
  java: 'java',
  kt: 'kotlin',
  cs: 'csharp',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  php: 'php',
  swift: 'swift',
  txt: 'text',
  ini: 'ini',
  cfg: 'ini',
  env: 'bash',
  dockerfile: 'dockerfile',
}

/** The highlight language of a file, from its extension (or its name: Dockerfile, Makefile). */
export function languageOfFile(file: string): string {
  const name = path.basename(file).toLowerCase()
  if (name === 'dockerfile') return 'dockerfile'
  if (name === 'makefile') return 'makefile'
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : ''
  return normalizeLanguage(EXTENSION_LANGUAGES[ext] ?? (ext || 'text'))
}

export const isMarkdownFile = (file: string): boolean => /\.(md|markdown|mdx)$/i.test(file)

/**
 * Lines by 1-based inclusive ranges: "3", "3-8", "20-" (to the end), "-5", comma-separated.
 * `separator` is what joins a range's ends ("-" for Sphinx, ":" for FastAPI's `ln[3:8]`).
 */
export function selectLines(text: string, spec: string, separator: '-' | ':' = '-'): string {
  const lines = text.split('\n')
  const picked: string[] = []
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [from, to] = part.includes(separator) ? part.split(separator) : [part, part]
    const start = from.trim() === '' ? 1 : Number(from)
    const end = to.trim() === '' ? lines.length : Number(to)
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1) continue
    append(picked, lines.slice(start - 1, Math.min(end, lines.length)))
  }
  return picked.join('\n')
}

/**
 * Marker lines of named regions, in every comment style the dialects use: VitePress
 * `#region name` / `#endregion`, pymdownx `--8<-- [start:name]` / `[end:name]`, C# `#region`,
 * mdBook `ANCHOR: name` / `ANCHOR_END: name`, AsciiDoc `tag::name[]` / `end::name[]`.
 */
const REGION_START = /^\s*(?:\/\/|#|<!--|\/\*|--|;|%)?\s*(?:#region\b\s*([\w.-]*)|--8<--\s*\[start:([\w.-]+)\]|ANCHOR:\s*([\w.-]+)|tag::([\w.-]+)\[\])\s*(?:-->|\*\/)?\s*$/
const REGION_END = /^\s*(?:\/\/|#|<!--|\/\*|--|;|%)?\s*(?:#endregion\b\s*([\w.-]*)|--8<--\s*\[end:([\w.-]+)\]|ANCHOR_END:\s*([\w.-]+)|end::([\w.-]+)\[\])\s*(?:-->|\*\/)?\s*$/

const regionName = (match: RegExpExecArray): string => match[1] ?? match[2] ?? match[3] ?? match[4]

/** The lines inside a named region (without its markers); undefined when the file has none by that name. */
export function selectRegion(text: string, name: string): string | undefined {
  const lines = text.split('\n')
  let inside = false
  let found = false
  const picked: string[] = []
  for (const line of lines) {
    const start = REGION_START.exec(line)
    const end = REGION_END.exec(line)
    if (start && regionName(start) === name) {
      inside = true
      found = true
      continue
    }
    if (end && inside && (regionName(end) === name || regionName(end) === '')) {
      inside = false
      continue
    }
    if (inside) picked.push(line)
  }
  return found ? stripRegionMarkers(dedentLines(picked).join('\n')) : undefined
}

/** Removes every region marker line: they are build instructions, not part of the example. */
export function stripRegionMarkers(text: string): string {
  return text
    .split('\n')
    .filter((line) => !REGION_START.test(line) && !REGION_END.test(line))
    .join('\n')
}

/** Sphinx `:pyobject:`: the source of a function, class or `Class.method`, by indentation. */
export function selectPyObject(text: string, qualifiedName: string): string | undefined {
  const lines = text.split('\n')
  let scopeStart = 0
  let scopeEnd = lines.length
  let indent = -1
  for (const name of qualifiedName.split('.')) {
    const found = findDefinition(lines, name, scopeStart, scopeEnd, indent)
    if (!found) return undefined
    scopeStart = found.start
    scopeEnd = found.end
    indent = found.indent
  }
  // Decorators belong to the object they decorate.
  let start = scopeStart
  while (start > 0 && /^\s*@/.test(lines[start - 1])) start--
  return dedentLines(lines.slice(start, scopeEnd)).join('\n').trimEnd()
}

function findDefinition(lines: string[], name: string, from: number, to: number, outerIndent: number): { start: number; end: number; indent: number } | undefined {
  const pattern = new RegExp(`^(\\s*)(?:async\\s+def|def|class)\\s+${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`)
  for (let i = from; i < to; i++) {
    const match = pattern.exec(lines[i])
    if (!match || match[1].length <= outerIndent) continue
    const indent = match[1].length
    let end = i + 1
    while (end < to && (lines[end].trim() === '' || /^\s*/.exec(lines[end])![0].length > indent)) end++
    while (end > i + 1 && lines[end - 1].trim() === '') end--
    return { start: i, end, indent }
  }
  return undefined
}

/**
 * Sphinx `:start-after:` / `:start-at:` / `:end-before:` / `:end-at:`: the text between the
 * first line containing one marker and the next containing the other.
 */
export function selectBetween(text: string, options: { startAfter?: string; startAt?: string; endBefore?: string; endAt?: string }): string {
  const lines = text.split('\n')
  let start = 0
  if (options.startAfter !== undefined) {
    const i = lines.findIndex((line) => line.includes(options.startAfter!))
    start = i === -1 ? lines.length : i + 1
  } else if (options.startAt !== undefined) {
    const i = lines.findIndex((line) => line.includes(options.startAt!))
    start = i === -1 ? lines.length : i
  }
  let end = lines.length
  if (options.endBefore !== undefined) {
    const i = lines.findIndex((line, n) => n >= start && line.includes(options.endBefore!))
    if (i !== -1) end = i
  } else if (options.endAt !== undefined) {
    const i = lines.findIndex((line, n) => n >= start && line.includes(options.endAt!))
    if (i !== -1) end = i + 1
  }
  return lines.slice(start, end).join('\n')
}

export function dedentLines(lines: string[]): string[] {
  const indents = lines.filter((line) => line.trim() !== '').map((line) => /^[ \t]*/.exec(line)![0].length)
  const common = minOf(indents, 0)
  return lines.map((line) => line.slice(Math.min(common, /^[ \t]*/.exec(line)![0].length)))
}
