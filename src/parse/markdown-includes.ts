/**
 * Include directives of Markdown docs, expanded into the text before it is parsed, so the page
 * reads as its rendered site shows it:
 *
 * - pymdownx snippets: `--8<-- "path"` (also `path:3:10` lines, `path:name` sections marked
 *   `--8<-- [start:name]`), alone or inside a fence, and the block form between two `--8<--`;
 * - the FastAPI family's `{* path ln[3:8] hl[4] *}`;
 * - VitePress `<<< @/path#region{2 ts}` (code) and `<!--@include: ./part.md{3,}-->` (Markdown);
 * - Docusaurus `import Source from '!!raw-loader!./file'` shown by `<CodeBlock>{Source}</CodeBlock>`;
 * - mdBook `{{#include file:anchor}}`, `{{#rustdoc_include file:3:10}}`, `{{#playground file}}`,
 *   inside a fence (its code) or on a line of their own.
 *
 * Included code becomes a fence in the included file's language whose meta names the file
 * (`lectern-include`), so the snippet records where its code lives; included Markdown is
 * expanded in place, its own includes too, down to MAX_INCLUDE_DEPTH.
 */
import {
  MAX_INCLUDE_DEPTH,
  ancestors,
  includeCandidates,
  mentionsInclude,
  isMarkdownFile,
  moduleCandidates,
  languageOfFile,
  readInclude,
  selectBetween,
  selectLines,
  selectRegion,
  stripRegionMarkers,
  type DirectiveAt,
  type Selected,
} from './includes.js'
import path from 'node:path/posix'
import { DATA_TABLE, dataTable } from './jekyll-data.js'
import { titleMeta } from './markdown-dialects.js'
import { TEMPLATE_INCLUDE } from './markdown-templates.js'
import type { IncludeReader, NotRendered, SiteConventions } from './types.js'
import { append } from '../text/arrays.js'

/** Fence meta naming the repository files a fence's code came from (read by markdown.ts). */
export const INCLUDE_META = 'lectern-include'

export interface IncludeOptions {
  reader: IncludeReader
  siteRoots: string[]
  aliases?: Array<{ pattern: string; targets: string[] }>
  notRendered?: NotRendered
  /** The site's template tags, whose include tags are read here too (Hugo's, Jekyll's). */
  templates?: SiteConventions['templates']
}

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/
const SNIPPET_LINE = /^(\s*)(;?)--8<--\s+(["'])(.+?)\3\s*$/
const SNIPPET_BLOCK = /^(\s*)--8<--\s*$/
const FASTAPI = /^(\s*)\{\*\s+(\S+)(.*?)\*\}\s*$/
const VITEPRESS_CODE = /^(\s*)<<<\s+([^\s{]+(?:\{[^}]*\})?)(?:\s+\[([^\]]*)\])?\s*$/
const VITEPRESS_INCLUDE = /<!--\s*@include:\s*([^\s>]+?)\s*-->/g
const RAW_LOADER_IMPORT = /^\s*import\s+(\w+)\s+from\s+['"]!!?raw-loader!([^'"]+)['"];?\s*$/
const CODE_BLOCK_ELEMENT = /<CodeBlock\b([^>]*)>\s*\{\s*(\w+)\s*\}\s*<\/CodeBlock>/g
/** An MDX partial: a Markdown module imported as a component and placed on a line of its own. */
const PARTIAL_IMPORT = /^\s*import\s+(\w+)\s+from\s+['"]([^'"]+\.mdx?)['"];?\s*$/
const PARTIAL_USE = /^(\s*)<([A-Z$_][\w$]*)(?:\s[^<>]*)?\/>\s*$/
/** mdBook: `{{#include file}}`, `file:anchor`, `file:3:10`; `{{#rustdoc_include}}` and `{{#playground}}` show the same code. */
const MDBOOK = /^([ \t]*)\{\{#(include|rustdoc_include|playground)[ \t]+([^}\s]+)(?:[ \t][^}]*)?\}\}[ \t]*$/
/** MyST's include directives, written as fences: ```{literalinclude} path and ```{include} path. */
const MYST_INCLUDE = /^(\s*)(`{3,}|~{3,})\{(literalinclude|include)\}\s+(\S+)\s*$/

/**
 * The text with its include directives expanded. `firstLine` is the file line of the text's
 * first line (after a front matter), so that what the directives came to is recorded by line.
 */
export function expandIncludes(docPath: string, text: string, options: IncludeOptions, depth = 0, firstLine = 1): string {
  const lines = text.split('\n')
  const at = (i: number): DirectiveAt => ({ page: docPath, line: firstLine + i })
  const rawLoaders = rawLoaderImports(lines, at, options)
  const partials = partialImports(lines)
  const out: string[] = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    const myst = MYST_INCLUDE.exec(line)
    if (myst) {
      const end = fenceEnd(lines, i, myst[2])
      append(out, mystInclude(at(i), myst, lines.slice(i + 1, end - 1), options, depth))
      i = end - 1
      continue
    }
    const fence = FENCE.exec(line)
    if (fence) {
      const end = fenceEnd(lines, i, fence[2])
      append(out, expandInsideFence(lines.slice(i, end), (n) => at(i + n), options))
      i = end - 1
      continue
    }
    const partial = PARTIAL_USE.exec(line)
    const partialPath = partial ? partials.get(partial[2]) : undefined
    if (partial && partialPath !== undefined) {
      append(out, mdxPartial(at(i), partialPath, partial[1], options, depth))
      continue
    }
    const expanded = expandLine(lines, i, at, options, depth)
    if (expanded) {
      append(out, expanded.lines)
      i = expanded.next - 1
      continue
    }
    out.push(line.replace(VITEPRESS_INCLUDE, (_m, ref: string) => markdownInclude(at(i), ref, options, depth) ?? ''))
  }
  const joined = out.join('\n')
  return rawLoaders.size === 0 ? joined : expandCodeBlocks(joined, rawLoaders)
}

function fenceEnd(lines: string[], start: number, marker: string): number {
  for (let i = start + 1; i < lines.length; i++) {
    const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[i])
    if (close && close[1][0] === marker[0] && close[1].length >= marker.length) return i + 1
  }
  return lines.length
}

/** A fence of code from a file: long enough that backticks in the code cannot close it. */
function codeFence(indent: string, language: string, code: string, file: string, title?: string): string[] {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length))
  const marker = '`'.repeat(Math.max(3, longest + 1))
  return ['', ...[`${marker}${language}${title ? titleMeta(title) : ''} ${INCLUDE_META}="${file}"`, ...code.split('\n'), marker].map((l) => (l === '' ? '' : indent + l)), '']
}

interface Expanded {
  lines: string[]
  next: number
}

function expandLine(lines: string[], i: number, at: (i: number) => DirectiveAt, options: IncludeOptions, depth: number): Expanded | undefined {
  const line = lines[i]
  let match = SNIPPET_LINE.exec(line)
  if (match) {
    // `;--8<--` is pymdownx's escape: the line is shown as written.
    if (match[2] === ';') return { lines: [line.replace(';--8<--', '--8<--')], next: i + 1 }
    return { lines: snippetInclude(at(i), match[4], match[1], options, depth), next: i + 1 }
  }
  match = SNIPPET_BLOCK.exec(line)
  if (match) {
    const close = lines.findIndex((l, n) => n > i && SNIPPET_BLOCK.test(l))
    if (close !== -1) {
      const indent = match[1]
      const refs = lines.slice(i + 1, close).flatMap((l, n) => (l.trim() === '' || l.trim().startsWith(';') ? [] : [{ ref: l.trim(), at: at(i + 1 + n) }]))
      return { lines: refs.flatMap(({ ref, at }) => snippetInclude(at, ref, indent, options, depth)), next: close + 1 }
    }
  }
  match = FASTAPI.exec(line)
  if (match) return { lines: fastapiInclude(at(i), match[2], match[3], match[1], options), next: i + 1 }
  match = MDBOOK.exec(line)
  if (match) return { lines: mdbookInclude(at(i), match[3], match[1], options, depth), next: i + 1 }
  match = options.templates === 'jekyll' ? DATA_TABLE.exec(line) : null
  if (match) return { lines: dataTable(at(i), match[2], match[1], options.siteRoots, options.reader), next: i + 1 }
  match = options.templates ? TEMPLATE_INCLUDE.exec(line) : null
  if (match) return { lines: templateInclude(at(i), match, options, depth), next: i + 1 }
  match = VITEPRESS_CODE.exec(line)
  if (match) return { lines: vitepressInclude(at(i), match[2], match[3], match[1], options), next: i + 1 }
  return undefined
}

/** `--8<--` lines inside a fence: the fence shows the file's text; the fence's meta names the file. */
function expandInsideFence(fence: string[], at: (n: number) => DirectiveAt, options: IncludeOptions): string[] {
  const closes = fence.length > 1 && /^\s*(`{3,}|~{3,})\s*$/.test(fence.at(-1)!)
  const inner = fence.slice(1, closes ? -1 : undefined)
  const files: string[] = []
  let directives = 0
  const body = inner.flatMap((line, n) => {
    const book = MDBOOK.exec(line)
    const match = book ? undefined : SNIPPET_LINE.exec(line)
    if (!book && (!match || match[2] === ';')) return [line]
    directives++
    const found = book ? mdbookText(at(n + 1), book[3], options) : snippetText(at(n + 1), match![4], options)
    if (!found) return []
    files.push(found.path)
    const indent = book ? book[1] : match![1]
    return found.text.split('\n').map((l) => (l === '' ? '' : indent + l))
  })
  if (directives === 0) return fence
  // A fence of nothing but includes that read no file shows nothing: the directive is not code.
  if (body.every((line) => line.trim() === '')) return []
  const [, indent, marker, info] = FENCE.exec(fence[0])!
  const language = info.trim() === '' && files.length > 0 ? languageOfFile(files[0]) : info.trim()
  const meta = files.length > 0 ? ` ${INCLUDE_META}="${files.join(',')}"` : ''
  return [`${indent}${marker}${language}${meta}`, ...body, ...(closes ? [fence.at(-1)!] : [])]
}

/** pymdownx: `path`, `path:3:10`, `path:name`. */
function snippetText(at: DirectiveAt, reference: string, options: IncludeOptions): { path: string; text: string } | undefined {
  const [, file, a, b] = /^(.*?)(?::([\w.-]*))?(?::(\d*))?$/.exec(reference.trim())!
  const select = (text: string, path: string): Selected => {
    if (a !== undefined && /^\d*$/.test(a) && (a !== '' || b !== undefined)) text = selectLines(text, `${a || 1}-${b ?? ''}`)
    else if (a !== undefined && a !== '') {
      const region = selectRegion(text, a)
      if (region === undefined) return { problem: `no section "${a}" in ${path}` }
      text = region
    }
    return stripRegionMarkers(text).replace(/\n+$/, '')
  }
  return readInclude(options.reader, at, reference, includeCandidates(at.page, file, options.siteRoots), select)
}

function snippetInclude(at: DirectiveAt, reference: string, indent: string, options: IncludeOptions, depth: number): string[] {
  const found = snippetText(at, reference, options)
  if (!found) return []
  if (isMarkdownFile(found.path)) return nestedMarkdown(found.path, found.text, options, depth, indent)
  return codeFence(indent, languageOfFile(found.path), found.text, found.path)
}

function nestedMarkdown(file: string, text: string, options: IncludeOptions, depth: number, indent = ''): string[] {
  if (depth + 1 >= MAX_INCLUDE_DEPTH) {
    if (mentionsInclude(text)) options.reader.record({ page: file, line: 0, reference: file, resolved: file, problem: `includes nest deeper than ${MAX_INCLUDE_DEPTH}; the ones in this file are not expanded` })
    return text.split('\n').map((l) => (l === '' ? '' : indent + l))
  }
  return expandIncludes(file, text, options, depth + 1)
    .split('\n')
    .map((l) => (l === '' ? '' : indent + l))
}

/**
 * mdBook's `file`, `file:anchor`, `file:3`, `file:3:10`, `file:3:`, `file::10`: the whole file, a
 * region between `ANCHOR: name` and `ANCHOR_END: name`, or lines; anchor lines never show.
 */
function mdbookText(at: DirectiveAt, reference: string, options: IncludeOptions): { path: string; text: string } | undefined {
  const [, file, selection] = /^([^:]+)(?::(.*))?$/.exec(reference)!
  const select = (text: string, path: string): Selected => {
    if (selection === undefined || selection === '') return stripRegionMarkers(text).replace(/\n+$/, '')
    const lines = /^(\d*)(?::(\d*))?$/.exec(selection)
    if (!lines) {
      const region = selectRegion(text, selection)
      return region === undefined ? { problem: `no anchor "${selection}" in ${path}` } : region.replace(/\n+$/, '')
    }
    const [, from, to] = lines
    return stripRegionMarkers(selectLines(text, to === undefined ? from : `${from || 1}-${to}`)).replace(/\n+$/, '')
  }
  return readInclude(options.reader, at, reference, includeCandidates(at.page, file, options.siteRoots), select)
}

/** An mdBook include on a line of its own: Markdown reads in place, anything else is the page's code. */
function mdbookInclude(at: DirectiveAt, reference: string, indent: string, options: IncludeOptions, depth: number): string[] {
  const found = mdbookText(at, reference, options)
  if (!found) return []
  if (isMarkdownFile(found.path)) return nestedMarkdown(found.path, found.text, options, depth, indent)
  return codeFence(indent, languageOfFile(found.path), found.text, found.path)
}

/**
 * Jekyll `{% include note.md %}` (from the site's `_includes/`) and `{% include_relative x.md %}`;
 * Hugo `{{% include "/_common/x.md" %}}`, `{{< readfile file="x" >}}`, `{{< code file="x" >}}`,
 * `{{< codenew file="x" >}}` and `{{% code_sample file="x" %}}` (the Kubernetes site's, from an
 * `examples/` folder of the content). Markdown reads in place; code is the page's code; an HTML
 * template is rendered only when the site builds, except the callout pattern's `content="..."`.
 */
function templateInclude(at: DirectiveAt, match: RegExpExecArray, options: IncludeOptions, depth: number): string[] {
  const [, indent, liquid, liquidTarget, liquidParams, shortcode, shortcodeParams] = match
  const params = (liquid ? liquidParams : shortcodeParams).trim()
  const target = (liquid ? liquidTarget : (/\bfile\s*=\s*["']?([^"'\s]+)/.exec(params)?.[1] ?? /^["']?([^"'\s]+)/.exec(params)?.[1] ?? '')).replace(/^["']|["']$/g, '')
  if (target === '' || target.includes('{{')) return []
  const relative = target.replace(/^\//, '')
  const page = path.dirname(at.page) === '.' ? '' : path.dirname(at.page)
  const folders = [page, ...ancestors(page), '']
  const candidates =
    liquid === 'include'
      ? [...options.siteRoots, ...folders].map((base) => path.join(base, '_includes', relative))
      : shortcode === 'codenew' || shortcode === 'code_sample'
        ? [...includeCandidates(at.page, relative, options.siteRoots), ...folders.map((base) => path.join(base, 'examples', relative))]
        : includeCandidates(at.page, relative, options.siteRoots)
  if (liquid && !isMarkdownFile(target) && !/\.(py|js|ts|rb|go|java|sh|ya?ml|json|toml)$/i.test(target)) {
    // An HTML template: its output exists only once the site builds, but a callout's text is its parameter.
    const content = /\bcontent\s*=\s*"([^"]*)"/.exec(params)?.[1]
    if (content) return ['', `${indent}> ${content}`, '']
    options.notRendered?.({ line: at.line, directive: match[0].trim() })
    return []
  }
  const inside = [...new Set(candidates)].filter((c) => !path.isAbsolute(c) && c !== '..' && !c.startsWith('../'))
  const found = readInclude(options.reader, at, target, inside, (text) => text.replace(/^(---|\+\+\+)\n[\s\S]*?\n\1\n/, '').replace(/\n+$/, ''))
  if (!found) return []
  if (isMarkdownFile(found.path)) return nestedMarkdown(found.path, found.text, options, depth, indent)
  return codeFence(indent, languageOfFile(found.path), found.text, found.path)
}

/** `{* path ln[1:5,9] hl[3] *}`: the file's code, or the selected lines of it. */
function fastapiInclude(at: DirectiveAt, file: string, rest: string, indent: string, options: IncludeOptions): string[] {
  const lines = /\bln\[([^\]]*)\]/.exec(rest)
  const select = (text: string): Selected => stripRegionMarkers(lines ? selectLines(text, lines[1], ':') : text).replace(/\n+$/, '')
  const found = readInclude(options.reader, at, file, includeCandidates(at.page, file, options.siteRoots), select)
  return found ? codeFence(indent, languageOfFile(found.path), found.text, found.path) : []
}

/** `<<< @/snippets/x.js#region{1,2 ts:line-numbers} [label]`. */
function vitepressInclude(at: DirectiveAt, reference: string, label: string | undefined, indent: string, options: IncludeOptions): string[] {
  const [, file, region, braces] = /^([^#{]+)(?:#([\w.-]+))?(?:\{([^}]*)\})?$/.exec(reference) ?? [undefined, reference]
  if (file === undefined) return []
  const select = (text: string, path: string): Selected => {
    const code = region ? selectRegion(text, region) : text
    if (code === undefined) return { problem: `no region "${region}" in ${path}` }
    return stripRegionMarkers(code).replace(/\n+$/, '')
  }
  const found = readInclude(options.reader, at, reference, includeCandidates(at.page, file, options.siteRoots), select)
  if (!found) return []
  // Inside the braces: highlighted lines (digits, commas, dashes) and an optional language.
  const language = (braces ?? '').split(/\s+/).find((word) => word !== '' && !/^[\d,-]+$/.test(word))?.replace(/:.*$/, '')
  return codeFence(indent, language || languageOfFile(found.path), found.text, found.path, label)
}

/** `<!--@include: ./part.md{3,}-->` or `...#region`: the part's Markdown, its own includes expanded. */
function markdownInclude(at: DirectiveAt, reference: string, options: IncludeOptions, depth: number): string | undefined {
  const [, file, region, range] = /^([^#{]+)(?:#([\w.-]+))?(?:\{([^}]*)\})?$/.exec(reference) ?? []
  if (file === undefined) return undefined
  const select = (text: string, path: string): Selected => {
    const part = region ? selectRegion(text, region) : text
    if (part === undefined) return { problem: `no region "${region}" in ${path}` }
    return range ? selectLines(part, range.replace(',', '-')) : part
  }
  const found = readInclude(options.reader, at, reference, includeCandidates(at.page, file, options.siteRoots), select)
  if (!found) return undefined
  return `\n${nestedMarkdown(found.path, found.text, options, depth).join('\n')}\n`
}

/** ```{literalinclude} path with `:lines:`/`:language:`/`:start-after:`... options, or ```{include} path. */
function mystInclude(at: DirectiveAt, match: RegExpExecArray, body: string[], options: IncludeOptions, depth: number): string[] {
  const [, indent, , directive, reference] = match
  const fields = new Map(body.flatMap((line) => {
    const option = /^\s*:([\w-]+):\s*(.*)$/.exec(line)
    return option ? [[option[1], option[2].trim()] as const] : []
  }))
  const select = (text: string): Selected => {
    const between = selectBetween(text, { startAfter: fields.get('start-after'), endBefore: fields.get('end-before') })
    const lines = fields.get('lines')
    return lines ? selectLines(between, lines) : between
  }
  const found = readInclude(options.reader, at, reference, includeCandidates(at.page, reference, options.siteRoots), select)
  if (!found) return []
  if (directive === 'include') return nestedMarkdown(found.path, found.text, options, depth, indent)
  const language = fields.get('language') ?? languageOfFile(found.path)
  return codeFence(indent, language, stripRegionMarkers(found.text).replace(/\n+$/, ''), found.path, fields.get('caption'))
}

function partialImports(lines: string[]): Map<string, string> {
  const partials = new Map<string, string>()
  for (const line of lines) {
    const match = PARTIAL_IMPORT.exec(line)
    if (match) partials.set(match[1], match[2])
  }
  return partials
}

/** A partial's Markdown in place of its component tag, front matter dropped, its own includes expanded. */
function mdxPartial(at: DirectiveAt, specifier: string, indent: string, options: IncludeOptions, depth: number): string[] {
  const found = readInclude(options.reader, at, specifier, moduleCandidates(at.page, specifier, options.aliases), (text) => text.replace(/^---\n[\s\S]*?\n---\n/, ''))
  if (!found) return []
  return ['', ...nestedMarkdown(found.path, found.text, options, depth, indent), '']
}

interface RawSource {
  file: string
  text: string
}

function rawLoaderImports(lines: string[], at: (i: number) => DirectiveAt, options: IncludeOptions): Map<string, RawSource> {
  const sources = new Map<string, RawSource>()
  for (const [i, line] of lines.entries()) {
    const match = RAW_LOADER_IMPORT.exec(line)
    if (!match) continue
    const where = at(i)
    const found = readInclude(options.reader, where, match[2], moduleCandidates(where.page, match[2], options.aliases))
    if (found) sources.set(match[1], { file: found.path, text: found.text.replace(/\n+$/, '') })
  }
  return sources
}

/** `<CodeBlock language="js" title="x">{Source}</CodeBlock>` with Source from raw-loader: a fence. */
function expandCodeBlocks(text: string, sources: Map<string, RawSource>): string {
  return text.replace(CODE_BLOCK_ELEMENT, (whole, attributes: string, name: string) => {
    const source = sources.get(name)
    if (!source) return whole
    const language = /\blanguage=["']([^"']+)["']/.exec(attributes)?.[1] ?? languageOfFile(source.file)
    const title = /\btitle=["']([^"']+)["']/.exec(attributes)?.[1]
    return codeFence('', language, stripRegionMarkers(source.text), source.file, title).join('\n')
  })
}

/** The include paths a fence's meta names. */
export function includesOf(meta: string | null | undefined): string[] | undefined {
  const match = new RegExp(`\\b${INCLUDE_META}="([^"]*)"`).exec(meta ?? '')
  return match ? match[1].split(',').filter(Boolean) : undefined
}

