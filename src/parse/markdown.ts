/**
 * Markdown and MDX reader: a parser builds an mdast tree, this module flattens it into blocks (see
 * blocks.ts) and hands them to the shared snippet assembly.
 * Two parsers: markdown-it for plain markdown (about ten times faster, see markdown-it.ts), remark
 * for MDX, since only remark-mdx reads JSX.
 */
import { unified } from 'unified'
import remarkParse from 'remark-parse'
import remarkGfm from 'remark-gfm'
import remarkMdx from 'remark-mdx'
import type {
  BlockContent,
  Code,
  DefinitionContent,
  Heading,
  List,
  ListItem,
  Nodes,
  PhrasingContent,
  Root,
  RootContent,
  Table,
} from 'mdast'
import { markdownItTree } from './markdown-it.js'
import { assembleSnippets, normalizeLanguage, type Block, type CodeBlock, type ProseBlock } from './blocks.js'
import { CODE_TOGGLE_META, configVariants } from './code-toggle.js'
import { GROUP_META, normalizeDialects, titleMeta } from './markdown-dialects.js'
import { expandIncludes, includesOf } from './markdown-includes.js'
import { renderTemplates } from './markdown-templates.js'
import { exportedMetadata, propsMarkdown, readLiteral } from './mdx-props.js'
import { rstBlocks } from './rst.js'
import { anchorStyleOf } from './anchors.js'
import type { ParseContext, ParsedSnippet, SourceDocument } from './types.js'
import { append } from '../text/arrays.js'
import { clampDepth } from './tree-depth.js'

export interface MarkdownOptions {
  mdx: boolean
}

export interface MarkdownBlocks {
  blocks: Block[]
  /** The front-matter `title:`, when there is one. */
  declaredTitle?: string
}

type Mode = 'markdown' | 'plain'
type MdxJsxFlowElement = Extract<RootContent, { type: 'mdxJsxFlowElement' }>

/** Components whose children are alternatives of one example (Docusaurus, Mintlify, Nextra, Starlight, Prisma...). */
const TAB_CONTAINERS = new Set(['Tabs', 'CodeGroup', 'CodeTabs', 'Tabset', 'TabbedContent', 'PackageManagerTabs', 'SwitchTech'])
/** One alternative; Starlight's PackageManagerTabs name theirs with a `<Fragment slot="npm">`. */
const TAB_ITEMS = new Set(['Tab', 'TabItem', 'Fragment'])
/** Components that render an aside (note, warning...): prose with its label and title, never a code description. */
const ASIDE_COMPONENTS = new Set(['Aside', 'Admonition', 'Callout', 'Note', 'Tip', 'Info', 'Warning', 'Caution', 'Danger', 'Important'])
/** MyST fences that are code (```{code-block} python) rather than other directives. */
const MYST_CODE_DIRECTIVES = new Set(['code-block', 'code', 'sourcecode', 'code-cell'])
const MYST_ADMONITIONS = new Set([
  'note', 'warning', 'tip', 'hint', 'important', 'caution', 'danger', 'attention', 'error', 'seealso', 'admonition',
])

export function parseMarkdown(doc: SourceDocument, opts: MarkdownOptions, context: ParseContext = {}): ParsedSnippet[] {
  const { blocks, declaredTitle } = markdownBlocks(doc.text, opts, { ...context, path: doc.path })
  // MyST pages of a Sphinx site are rendered by docutils, which names their sections.
  return assembleSnippets(blocks, { path: doc.path, declaredTitle, anchors: anchorStyleOf(doc.path, context) })
}

/**
 * ESM at the top level, or a component element (`<Tabs>`, `<TabItem value="npm">`) on a line of
 * its own, indented less than a code block.
 */
const MDX_SYNTAX = /^(?:import[ \t]+[\w{*][^\n]*[ \t]from[ \t]+['"]|export[ \t]+(?:const|default|function)\b| {0,3}<[A-Z][\w.]*(?:[ \t][^<>\n]*)?\/?>[ \t]*$)/m

/**
 * A `.md` page written as MDX: Docusaurus (and Nextra, Mintlify...) compile `.md` pages as MDX,
 * so a page that imports components and places `<Tabs>` means them as MDX does. Read as plain
 * Markdown, its import lines would be prose and each tab a snippet of its own.
 */
export function looksLikeMdx(text: string): boolean {
  // Most pages have no such line at all: only those that do are cut into fences and prose.
  return MDX_SYNTAX.test(text) && splitFences(text).some((segment) => !segment.fence && MDX_SYNTAX.test(segment.text))
}

/**
 * Flattens a markdown (or MDX) text into blocks; also used for notebook markdown cells. With a
 * repository reader, include directives are expanded first (their paths are relative to `path`).
 */
export function markdownBlocks(text: string, opts: MarkdownOptions, context: ParseContext & { path?: string } = {}): MarkdownBlocks {
  const normal = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n')
  const { body, title } = splitFrontMatter(normal)
  const firstLine = normal.slice(0, normal.length - body.length).split('\n').length
  // MDX has `{{` of its own (`sx={{ color: 'red' }}`): template tags are Markdown pages' only.
  const templates = opts.mdx ? undefined : context.templates
  const templated = templates ? renderTemplates(body, context.notRendered, firstLine) : body
  const expanded = context.includes
    ? expandIncludes(context.path ?? '', templated, { reader: context.includes, siteRoots: context.siteRoots ?? [], aliases: context.aliases, notRendered: context.notRendered, templates }, 0, firstLine)
    : templated
  const tree = parseTree(normalizeDialects(headingIds(expanded)), opts.mdx)
  if (!tree) return { blocks: [], declaredTitle: title }
  const exported = exportedMetadata(tree.children.flatMap((node) => (node.type === 'mdxjsEsm' ? [node.value] : [])).join('\n'))
  const description = exported.description ? proseBlocks(exported.description, exported.description, false) : []
  return { blocks: [...description, ...flowBlocks(tree.children)], declaredTitle: title ?? exported.title }
}

/** YAML (`---`) or TOML (`+++`) front matter: its title names the page, the rest is metadata. */
function splitFrontMatter(text: string): { body: string; title?: string } {
  const match = /^(---|\+\+\+)[ \t]*\n([\s\S]*?)\n\1[ \t]*(?:\n|$)/.exec(text)
  if (!match) return { body: text }
  const titleLine = /^title[ \t]*[:=][ \t]*(.+?)[ \t]*$/m.exec(match[2])
  const title = titleLine ? titleLine[1].replace(/^(['"])(.*)\1$/, '$2').trim() : ''
  return { body: text.slice(match[0].length), title: title === '' ? undefined : title }
}

/**
 * MDX's heading id comment (`## Title {/` + `*title-id*` + `/}`) as the `{#id}` every other
 * generator writes, whatever the file's extension: React's docs use it in `.md` pages, where
 * markdown-it would read the stars as emphasis and keep the id in the title.
 */
function headingIds(text: string): string {
  if (!text.includes('{/*') && !text.includes('{#') && !text.includes('{:')) return text
  return mapProse(text, (prose) =>
    prose
      .replace(/^( {0,3}#{1,6}[ \t].*?)[ \t]*\{\/\*\s*([\w-]+)\s*\*\/\}[ \t]*$/gm, (_m, heading: string, id: string) => `${heading} {#${escapeId(id)}}`)
      // An id's `_` and `*` are letters of the id, not emphasis (`{#where-you-_can_-cause}`).
      .replace(/^( {0,3}#{1,6}[ \t].*?\{\s*:?\s*)(#[\w-]+)([^}\n]*\}[ \t]*)$/gm, (_m, before: string, id: string, after: string) => `${before}${escapeId(id)}${after}`)
      // kramdown's attribute list on the line under a heading is the heading's (`{: #id}`, `{: .no_toc}`);
      // on any other line of its own it belongs to the block above and is never text.
      .replace(/^( {0,3}#{1,6}[ \t][^\n]*)\n {0,3}(\{:[^}\n]*\})[ \t]*$/gm, (_m, heading: string, list: string) => `${heading} ${list.replace(/#[\w-]+/, escapeId)}`)
      .replace(/^ {0,3}\{:[^}\n]*\}[ \t]*$/gm, ''),
  )
}

const escapeId = (id: string) => id.replace(/\\?([_*])/g, '\\$1')

/** MDX is strict; a page it rejects is still worth reading as markdown with the JSX taken out. */
function parseTree(body: string, mdx: boolean): Root | undefined {
  const tree = mdx ? parseMdx(body) : markdownItTree(body)
  return tree && clampDepth(tree)
}

function parseMdx(body: string): Root | undefined {
  try {
    return unified().use(remarkParse).use(remarkGfm).use(remarkMdx).parse(prepareMdx(body))
  } catch {
    return parseStrippedMdx(stripMdxSyntax(body))
  }
}

/** Broken MDX, its JSX stripped, stays on remark: the rest of the page parses as valid MDX would. */
function parseStrippedMdx(body: string): Root | undefined {
  try {
    return unified().use(remarkParse).use(remarkGfm).parse(body)
  } catch {
    return undefined
  }
}

interface Segment {
  fence: boolean
  text: string
}

/** Cuts a text into fenced-code segments and the rest, so rewrites never touch code. */
function splitFences(text: string): Segment[] {
  const segments: Segment[] = []
  let current: string[] = []
  let fence: { char: string; length: number } | undefined
  const push = (isFence: boolean): void => {
    if (current.length > 0) segments.push({ fence: isFence, text: current.join('\n') })
    current = []
  }
  for (const line of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)
    if (!fence && marker) {
      push(false)
      fence = { char: marker[1][0], length: marker[1].length }
      current.push(line)
    } else if (fence && marker && marker[1][0] === fence.char && marker[1].length >= fence.length && line.trim() === marker[1]) {
      current.push(line)
      push(true)
      fence = undefined
    } else {
      current.push(line)
    }
  }
  push(fence !== undefined)
  return segments
}

function mapProse(text: string, rewrite: (prose: string) => string): string {
  return splitFences(text)
    .map((segment) => (segment.fence ? segment.text : rewrite(segment.text)))
    .join('\n')
}

/**
 * Rewrites the two markdown habits MDX rejects but docs use all the time: HTML comments and
 * Docusaurus heading ids (`## Title {#id}`), which MDX would read as a JS expression.
 */
function prepareMdx(body: string): string {
  return mapProse(body, (prose) =>
    prose
      .replace(/<!--[\s\S]*?-->/g, '')
      .replace(/^(#{1,6}[ \t].*?)\{(\s*:?\s*[#.][\w-]+[^}]*)\}[ \t]*$/gm, '$1\\{$2}'),
  )
}

/**
 * Fallback for broken MDX: drops ESM blocks, JSX comments and component tags. A tab's label
 * moves onto the fence that follows it as a `title=` meta, so the tabs still group as alternatives.
 */
function stripMdxSyntax(body: string): string {
  let label: string | undefined
  return splitFences(body)
    .map((segment) => {
      if (segment.fence) return labelFence(dedentFence(segment.text), label)
      label = lastTabLabel(segment.text)
      return stripJsx(segment.text)
    })
    .join('\n')
}

function lastTabLabel(prose: string): string | undefined {
  const tags = [...prose.matchAll(/<(?:Tab|TabItem)\b([^<>]*)>/g)]
  const attributes = tags.at(-1)?.[1] ?? ''
  return /\b(?:label|title|value)=["']([^"']+)["']/.exec(attributes)?.[1]
}

function labelFence(fence: string, label: string | undefined): string {
  const newline = fence.indexOf('\n')
  const opener = newline === -1 ? fence : fence.slice(0, newline)
  if (label === undefined || /\b(?:title|filename)=/.test(opener)) return fence
  return `${opener}${titleMeta(label)}${fence.slice(opener.length)}`
}

function stripJsx(prose: string): string {
  return prose
    .replace(/^(?:import|export)\b[^\n]*(?:\n(?![ \t]*\n)[^\n]*)*/gm, '')
    .replace(/\{\/\*[\s\S]*?\*\/\}/g, '')
    // A component in inline code (`<Badge>`) is text: only tags outside code spans go.
    .replace(/(`[^`\n]*`)|<\/?[A-Z][\w.]*(?:\s[^<>]*?)?\/?>/g, (_tag, code: string | undefined) => code ?? '')
    .split('\n')
    // Content nested in removed components is indented; left so, it would read as indented code.
    .map((line) => line.trimStart())
    .join('\n')
}

function dedentFence(fence: string): string {
  const lines = fence.split('\n')
  const indent = /^[ \t]*/.exec(lines[0])?.[0].length ?? 0
  return lines.map((line) => line.replace(new RegExp(`^[ \\t]{0,${indent}}`), '')).join('\n')
}

function flowBlocks(nodes: readonly RootContent[]): Block[] {
  return nodes.flatMap((node) => nodeBlocks(node))
}

function nodeBlocks(node: RootContent): Block[] {
  switch (node.type) {
    case 'heading':
      return headingBlocks(node)
    case 'code':
      return codeBlocks(node)
    case 'paragraph':
      return proseBlocks(paragraphText(node.children, 'markdown'), paragraphText(node.children, 'plain'))
    case 'list':
      if (isTableOfContents(node)) return []
      return containsCode(node) ? listFlowBlocks(node) : proseBlocks(listText(node, 'markdown'), listText(node, 'plain'))
    case 'blockquote':
      // A quote is an aside (a note, a warning): section prose, but never a code description.
      return containsCode(node) ? flowBlocks(node.children) : proseBlocks(quoteText(node.children, 'markdown'), quoteText(node.children, 'plain'), false)
    case 'table':
      return proseBlocks(tableText(node, 'markdown'), tableText(node, 'plain'), false)
    case 'html':
      return htmlBlocks(node.value)
    case 'footnoteDefinition':
      return flowBlocks(node.children)
    case 'mdxJsxFlowElement':
      return jsxBlocks(node)
    default:
      return []
  }
}

/**
 * An attribute list at the end of a heading's text: `{#id}`, `{ #id .class }` (Pandoc, MkDocs,
 * Hugo, mdBook), kramdown's `{: #id}` and `{: .no_toc}` (Jekyll). Never part of the title.
 */
const HEADING_ATTRIBUTES = /\s*\{\s*:?\s*([#.][\w-]+[^{}]*)\}\s*$/
/** MDX's comment expression holding an id (`{/` + `*id*` + `/}`), the only heading id MDX itself parses. */
const MDX_HEADING_ID = /^\s*\/\*\s*([\w-]+)\s*\*\/\s*$/

/**
 * A heading's text and explicit anchor. A heading with no text (a logo image) names nothing, so
 * it starts no section.
 */
function headingBlocks(node: Heading): Block[] {
  const text = paragraphText(node.children, 'plain')
  const explicit = HEADING_ATTRIBUTES.exec(text)
  const comment = node.children.find((child) => child.type === 'mdxTextExpression' && MDX_HEADING_ID.test(child.value))
  const id = (explicit ? /(?:^|\s)#([\w-]+)/.exec(explicit[1])?.[1] : undefined) ?? (comment?.type === 'mdxTextExpression' ? MDX_HEADING_ID.exec(comment.value)![1] : undefined)
  const shown = (explicit ? text.slice(0, explicit.index) : text).trim()
  if (shown === '') return []
  return [id ? { kind: 'heading', depth: node.depth, text: shown, id } : { kind: 'heading', depth: node.depth, text: shown }]
}

function codeBlocks(node: Code): Block[] {
  const myst = /^\{([\w-]+)\}$/.exec(node.lang ?? '')
  if (myst) return mystBlocks(myst[1], node)
  const variants = node.meta?.includes(CODE_TOGGLE_META) ? configVariants(node.value) : undefined
  if (variants) return [{ kind: 'codeGroup', codes: variants }]
  const code: CodeBlock = { kind: 'code', language: normalizeLanguage(node.lang), code: node.value }
  const title = metaTitle(node.meta)
  const group = new RegExp(`\\b${GROUP_META}="([^"]*)"`).exec(node.meta ?? '')?.[1]
  const includes = includesOf(node.meta)
  return [{ ...code, ...(title === undefined ? {} : { title }), ...(group === undefined ? {} : { group }), ...(includes ? { includes } : {}) }]
}

function metaTitle(meta: string | null | undefined): string | undefined {
  const match = /\b(?:title|filename|file)=(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(meta ?? '')
  const title = match ? (match[1] ?? match[2] ?? match[3]).trim() : ''
  return title === '' ? undefined : title
}

/** MyST (```{code-block} python, ```{note}) fences used by Sphinx projects written in markdown. */
function mystBlocks(directive: string, node: Code): Block[] {
  const lines = node.value.split('\n')
  const optionCount = lines.findIndex((line) => !/^:[\w-]+:/.test(line))
  const options = lines.slice(0, optionCount === -1 ? lines.length : optionCount)
  const body = lines.slice(options.length).join('\n')
  if (MYST_CODE_DIRECTIVES.has(directive)) {
    const caption = options.map((line) => /^:caption:\s*(.+)$/.exec(line)?.[1]).find(Boolean)
    const code: CodeBlock = { kind: 'code', language: normalizeLanguage(node.meta), code: body }
    return [caption ? { ...code, title: caption.trim() } : code]
  }
  if (directive === 'eval-rst') return rstBlocks(node.value, '')
  if (!MYST_ADMONITIONS.has(directive)) return []
  const label = directive === 'seealso' ? 'See also' : directive[0].toUpperCase() + directive.slice(1)
  const text = [node.meta, body.trim()].filter(Boolean).join(' ')
  return proseBlocks(`${label}: ${text}`, `${label}: ${text}`)
}

function jsxBlocks(node: MdxJsxFlowElement): Block[] {
  if (node.name !== null && TAB_CONTAINERS.has(node.name)) return tabBlocks(node)
  if (node.name !== null && ASIDE_COMPONENTS.has(node.name)) return asideBlocks(node)
  if (node.name === 'CodeBlock') return inlineCodeBlock(node)
  const props = propsMarkdown(attributesOf(node)).flatMap((markdown) => proseBlocks(markdown, markdown, false))
  return [...props, ...flowBlocks(node.children)]
}

function attributesOf(node: MdxJsxFlowElement): Array<{ name: string; value: string | { expression: string } | null }> {
  return node.attributes.flatMap((attr) => {
    if (attr.type !== 'mdxJsxAttribute') return []
    const value = attr.value
    return [{ name: attr.name, value: value === null || value === undefined ? null : typeof value === 'string' ? value : { expression: value.value } }]
  })
}

function stringAttribute(node: MdxJsxFlowElement, name: string): string | undefined {
  const value = attributesOf(node).find((attr) => attr.name === name)?.value
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined
}

/** `<Aside type="caution" title="Mind the cache">` reads like `:::caution Mind the cache`. */
function asideBlocks(node: MdxJsxFlowElement): Block[] {
  const kind = stringAttribute(node, 'type') ?? stringAttribute(node, 'variant') ?? (node.name === 'Aside' || node.name === 'Callout' || node.name === 'Admonition' ? 'note' : node.name!)
  const title = stringAttribute(node, 'title')
  const label = `${kind[0].toUpperCase()}${kind.slice(1).toLowerCase()}${title ? `: ${title}` : ''}`
  const blocks = flowBlocks(node.children).map((block) => (block.kind === 'prose' ? { ...block, intro: false } : block))
  const first = blocks.findIndex((block) => block.kind === 'prose')
  if (first === -1) return [...proseBlocks(label, label, false), ...blocks]
  const head = blocks[first] as ProseBlock
  blocks[first] = { ...head, markdown: `${label}: ${head.markdown}`, plain: `${label}: ${head.plain}` }
  return blocks
}

/** `<CodeBlock language="bash">npm i</CodeBlock>` or with a string or template literal child. */
function inlineCodeBlock(node: MdxJsxFlowElement): Block[] {
  const expression = node.children.find((child) => (child.type as string) === 'mdxFlowExpression' || (child.type as string) === 'mdxTextExpression') as { value: string } | undefined
  const literal = expression ? readLiteral(expression.value) : undefined
  const code = typeof literal === 'string' ? literal : node.children.map((child) => blockText(child, 'plain')).join('\n')
  if (code.trim() === '') return []
  const language = normalizeLanguage(stringAttribute(node, 'language') ?? stringAttribute(node, 'lang'))
  const title = stringAttribute(node, 'title')
  return [{ kind: 'code', language, code, ...(title ? { title } : {}) }]
}

/**
 * A tab container becomes one code group holding every code block of its tabs; prose inside the
 * tabs still counts for the section, labelled with its tab, but cannot introduce later code.
 */
function tabBlocks(container: MdxJsxFlowElement): Block[] {
  const codes: CodeBlock[] = []
  const prose: ProseBlock[] = []
  const collect = (blocks: Block[], label: string | undefined): void => {
    let labelled = label === undefined
    for (const block of blocks) {
      if (block.kind === 'code') codes.push(block)
      else if (block.kind === 'codeGroup') codes.push(...block.codes.map((code) => ({ kind: 'code' as const, ...code, includes: block.includes })))
      else if (block.kind === 'prose') {
        prose.push(tabProse(block, labelled ? undefined : label))
        labelled = true
      }
    }
  }
  for (const child of container.children) {
    if (child.type === 'mdxJsxFlowElement' && child.name !== null && TAB_ITEMS.has(child.name)) {
      collect(flowBlocks(child.children), tabLabel(child))
    } else {
      collect(nodeBlocks(child), undefined)
    }
  }
  const includes = [...new Set(codes.flatMap((code) => code.includes ?? []))]
  const group: Block[] = codes.length > 0 ? [{ kind: 'codeGroup', codes: codes.map(({ language, code }) => ({ language, code })), ...(includes.length > 0 ? { includes } : {}) }] : []
  return [...group, ...prose]
}

function tabProse(block: ProseBlock, label: string | undefined): ProseBlock {
  if (label === undefined) return { ...block, intro: false }
  return { kind: 'prose', markdown: `${label}: ${block.markdown}`, plain: `${label}: ${block.plain}`, intro: false }
}

function tabLabel(item: MdxJsxFlowElement): string | undefined {
  for (const name of ['label', 'title', 'value', 'slot']) {
    const attribute = item.attributes.find((attr) => attr.type === 'mdxJsxAttribute' && attr.name === name)
    if (attribute && typeof attribute.value === 'string' && attribute.value.trim() !== '') return attribute.value.trim()
  }
  return undefined
}

function proseBlocks(markdown: string, plain: string, intro = true): ProseBlock[] {
  // Badge rows and image-only paragraphs leave nothing but punctuation once images are dropped.
  if (!/[\p{L}\p{N}]/u.test(markdown)) return []
  return [{ kind: 'prose', markdown, plain, intro }]
}

/** Drops Docusaurus admonition fences and turns GitHub alert markers into words. */
function cleanProse(text: string): string {
  return text
    .replace(/^:{3,}.*$/gm, '')
    .replace(/^\[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*/i, (_, kind: string) => `${kind[0].toUpperCase()}${kind.slice(1).toLowerCase()}: `)
    .replace(/\n{2,}/g, '\n')
    .trim()
}

/** A list of in-page links only repeats the headings; as prose it would drown the intro. */
function isTableOfContents(list: List): boolean {
  return list.children.every((item) =>
    item.children.every((child) => {
      if (child.type === 'list') return isTableOfContents(child)
      if (child.type !== 'paragraph') return false
      const [only, ...rest] = child.children
      return rest.length === 0 && only?.type === 'link' && only.url.startsWith('#')
    }),
  )
}

function containsCode(node: Nodes): boolean {
  if (node.type === 'code') return true
  return 'children' in node && (node.children as Nodes[]).some((child) => containsCode(child))
}

/**
 * A list with code in it (numbered setup steps) keeps its code as code: each item's first prose
 * gets the item marker, its later prose (nested lists, more paragraphs) sits indented under it.
 */
function listFlowBlocks(list: List): Block[] {
  return list.children.flatMap((item, index) => {
    const marker = listMarker(list, item, index)
    let seenProse = false
    return flowBlocks(item.children).map((block) => {
      if (block.kind !== 'prose') return block
      const prefix = (text: string): string => (seenProse ? text.replace(/^/gm, '  ') : marker + text)
      const prefixed = { ...block, markdown: prefix(block.markdown), plain: prefix(block.plain) }
      seenProse = true
      return prefixed
    })
  })
}

function listMarker(list: List, item: ListItem, index: number): string {
  const bullet = list.ordered ? `${(list.start ?? 1) + index}. ` : '- '
  if (item.checked === true) return `${bullet}[x] `
  if (item.checked === false) return `${bullet}[ ] `
  return bullet
}

function listText(list: List, mode: Mode): string {
  return list.children
    .map((item, index) => {
      const body = item.children
        .map((child) => blockText(child, mode))
        .filter((text) => text.trim() !== '')
        .join('\n')
      // Continuation lines and nested lists sit under the item's text.
      return listMarker(list, item, index) + body.replace(/\n/g, '\n  ')
    })
    .join('\n')
}

function quoteText(children: readonly (BlockContent | DefinitionContent)[], mode: Mode): string {
  const text = cleanProse(children.map((child) => blockText(child, mode)).filter((part) => part !== '').join('\n\n'))
  return mode === 'markdown' ? text.replace(/^/gm, '> ') : text
}

function tableText(table: Table, mode: Mode): string {
  const rows = table.children.map((row) => `| ${row.children.map((cell) => inlineText(cell.children, mode).replace(/\|/g, '\\|')).join(' | ')} |`)
  const columns = table.children[0]?.children.length ?? 0
  if (rows.length === 0 || columns === 0) return ''
  return [rows[0], `|${' --- |'.repeat(columns)}`, ...rows.slice(1)].join('\n')
}

/** Prose rendering of a block that has no code in it (list items, quotes). */
function blockText(node: RootContent, mode: Mode): string {
  switch (node.type) {
    case 'paragraph':
    case 'heading':
      return paragraphText(node.children, mode)
    case 'list':
      return listText(node, mode)
    case 'blockquote':
      return quoteText(node.children, mode)
    case 'table':
      return tableText(node, mode)
    case 'html':
      return htmlText(node.value)
    case 'mdxJsxFlowElement':
    case 'footnoteDefinition':
      return node.children.map((child) => blockText(child, mode)).filter((text) => text !== '').join('\n')
    default:
      return ''
  }
}

/** A paragraph's soft line breaks are layout, not meaning: it becomes one line. */
function paragraphText(nodes: readonly PhrasingContent[], mode: Mode): string {
  return cleanProse(inlineText(nodes, mode)).replace(/\s+/g, ' ')
}

function inlineText(nodes: readonly PhrasingContent[], mode: Mode): string {
  return nodes.map((node) => inlineNodeText(node, mode)).join('')
}

function inlineNodeText(node: PhrasingContent, mode: Mode): string {
  switch (node.type) {
    case 'text':
      return node.value
    case 'inlineCode':
      return mode === 'markdown' ? '`' + node.value + '`' : node.value
    case 'break':
      return '\n'
    case 'html':
      return htmlText(node.value)
    case 'emphasis':
    case 'strong':
    case 'delete':
    case 'link':
    case 'linkReference':
    case 'mdxJsxTextElement':
      return inlineText(node.children, mode)
    default:
      // Images, footnote references and inline expressions carry no readable text.
      return ''
  }
}

const HTML_HEADING = /<h([1-6])\b([^>]*)>([\s\S]*?)<\/h\1\s*>/gi

/** READMEs often open with a centred `<h1>`: it is a heading (the page title), the rest is prose. */
function htmlBlocks(html: string): Block[] {
  const blocks: Block[] = []
  let last = 0
  for (const match of html.matchAll(HTML_HEADING)) {
    const before = htmlText(html.slice(last, match.index))
    append(blocks, proseBlocks(before, before))
    const text = htmlText(match[3]).replace(/\s+/g, ' ')
    // A raw HTML heading has only the anchor its `id` gives it: no generator names one otherwise.
    const id = /\bid\s*=\s*["']([^"']+)["']/i.exec(match[2])?.[1]
    if (text !== '') blocks.push(id ? { kind: 'heading', depth: Number(match[1]), text, id } : { kind: 'heading', depth: Number(match[1]), text, keepAnchor: true })
    last = match.index + match[0].length
  }
  const rest = htmlText(html.slice(last))
  return [...blocks, ...proseBlocks(rest, rest)]
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }

/** Raw HTML keeps its text (a `<details>` summary, a centred intro) but never its tags or comments. */
function htmlText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|apos|nbsp);/g, (_, name: string) => ENTITIES[name])
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{2,}/g, '\n')
    .trim()
}
