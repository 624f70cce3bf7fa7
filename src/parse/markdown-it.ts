/**
 * Plain-markdown front end: markdown-it tokenizes about ten times faster than remark, and its
 * token stream is rebuilt here into the mdast nodes markdown.ts flattens, so markdown and MDX share
 * every rule after parsing. Only the nodes and fields markdown.ts reads are built; no positions.
 */
import MarkdownIt, { type StateBlock, type StateInline, type Token } from 'markdown-it'
import type { BlockContent, Code, DefinitionContent, List, ListItem, PhrasingContent, Root, Table, TableCell, TableRow } from 'mdast'

// Tables and strikethrough are in markdown-it's default rules; linkify stays off like its default,
// since a bare URL reads the same as text and as a link. Footnotes (GFM, not CommonMark) are added.
const md = new MarkdownIt({ html: true })
md.block.ruler.before('reference', 'footnote', footnoteDefinition, { alt: ['paragraph', 'reference', 'blockquote', 'list'] })
md.inline.ruler.after('image', 'footnote_ref', footnoteReference)

/** The parse's env: labels of the footnotes defined so far, as `[^label]` references resolve only to those. */
interface Env {
  footnotes: Set<string>
}

/** A walk over a flat token list whose `*_open`/`*_close` pairs stand for nesting. */
interface Cursor {
  tokens: Token[]
  pos: number
}

/**
 * markdown-it caps block and link nesting (its `maxNesting`, 100), but builds emphasis after
 * tokenizing, so `*****...x...*****` nests without bound; wrappers deeper than this are dropped,
 * keeping their text, so neither this walk nor markdown.ts recurses past the stack.
 */
const MAX_INLINE_DEPTH = 100

/** GitHub task-list marker at the start of an item's first paragraph (`- [x] done`). */
const TASK_MARKER = /^\[([ xX])\](?:[ \t]+|$)/

export function markdownItTree(body: string): Root {
  const env: Env = { footnotes: new Set() }
  return { type: 'root', children: blockNodes({ tokens: md.parse(body, env), pos: 0 }, undefined) }
}

const FOOTNOTE_DEFINITION = /\[\^([^\]\s]+)\]:/y
const FOOTNOTE_REFERENCE = /\[\^([^\]\s]+)\]/y

/**
 * `[^label]: text` starts a footnote whose body is the rest of the line plus the lines indented
 * under it, read as blocks (after markdown-it-footnote, which is not a dependency). Like remark-gfm,
 * it may interrupt a paragraph.
 */
function footnoteDefinition(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const start = state.bMarks[startLine] + state.tShift[startLine]
  const max = state.eMarks[startLine]
  if (state.sCount[startLine] - state.blkIndent >= 4) return false
  FOOTNOTE_DEFINITION.lastIndex = start
  const match = FOOTNOTE_DEFINITION.exec(state.src)
  if (!match || FOOTNOTE_DEFINITION.lastIndex > max) return false
  if (silent) return true
  ;(state.env as Env).footnotes.add(match[1].toLowerCase())
  state.push('footnote_open', '', 1).meta = match[1]

  // The first line's text after the colon becomes a line of its own, indented like the body.
  const saved = { bMark: state.bMarks[startLine], tShift: state.tShift[startLine], sCount: state.sCount[startLine] }
  const afterColon = FOOTNOTE_DEFINITION.lastIndex
  let pos = afterColon
  const initial = state.sCount[startLine] + afterColon - start
  let offset = initial
  while (pos < max && state.md.utils.isSpace(state.src.charCodeAt(pos))) {
    offset += state.src.charCodeAt(pos) === 0x09 ? 4 - (offset % 4) : 1
    pos++
  }
  state.bMarks[startLine] = afterColon
  state.tShift[startLine] = pos - afterColon
  state.sCount[startLine] = offset - initial
  state.blkIndent += 4
  if (state.sCount[startLine] < state.blkIndent) state.sCount[startLine] += state.blkIndent
  state.md.block.tokenize(state, startLine, endLine)
  state.blkIndent -= 4
  state.bMarks[startLine] = saved.bMark
  state.tShift[startLine] = saved.tShift
  state.sCount[startLine] = saved.sCount

  state.push('footnote_close', '', -1)
  return true
}

/** `[^label]` of a defined footnote is a reference; remark drops it from the text, as markdown.ts does. */
function footnoteReference(state: StateInline, silent: boolean): boolean {
  const env = state.env as Env
  if (env.footnotes.size === 0 || state.src.charCodeAt(state.pos) !== 0x5b || state.src.charCodeAt(state.pos + 1) !== 0x5e) return false
  FOOTNOTE_REFERENCE.lastIndex = state.pos
  const match = FOOTNOTE_REFERENCE.exec(state.src)
  if (!match || FOOTNOTE_REFERENCE.lastIndex > state.posMax || !env.footnotes.has(match[1].toLowerCase())) return false
  if (!silent) state.push('footnote_ref', '', 0).meta = match[1]
  state.pos = FOOTNOTE_REFERENCE.lastIndex
  return true
}

/** Block nodes up to (and consuming) the `close` token, or to the end of the stream. */
function blockNodes(cursor: Cursor, close: string | undefined): (BlockContent | DefinitionContent)[] {
  const nodes: (BlockContent | DefinitionContent)[] = []
  while (cursor.pos < cursor.tokens.length) {
    const token = cursor.tokens[cursor.pos++]
    if (token.type === close) break
    const node = blockNode(token, cursor)
    if (node) nodes.push(node)
  }
  return nodes
}

function blockNode(token: Token, cursor: Cursor): BlockContent | DefinitionContent | undefined {
  switch (token.type) {
    case 'footnote_open': {
      const label = String(token.meta)
      return { type: 'footnoteDefinition', identifier: label.toLowerCase(), label, children: blockNodes(cursor, 'footnote_close') }
    }
    case 'heading_open':
      return { type: 'heading', depth: Number(token.tag.slice(1)) as 1 | 2 | 3 | 4 | 5 | 6, children: inlineUntil(cursor, 'heading_close') }
    case 'paragraph_open':
      return { type: 'paragraph', children: inlineUntil(cursor, 'paragraph_close') }
    case 'fence':
      return fenceNode(token)
    case 'code_block':
      return { type: 'code', lang: null, meta: null, value: token.content.replace(/\n$/, '') }
    case 'bullet_list_open':
    case 'ordered_list_open':
      return listNode(token, cursor)
    case 'blockquote_open':
      return { type: 'blockquote', children: blockNodes(cursor, 'blockquote_close') }
    case 'table_open':
      return tableNode(cursor)
    case 'html_block':
      return { type: 'html', value: token.content.replace(/\n+$/, '') }
    case 'hr':
      return { type: 'thematicBreak' }
    default:
      return undefined
  }
}

/** Splits the info string as remark does: language is the first word, meta the rest. */
function fenceNode(token: Token): Code {
  const info = md.utils.unescapeAll(token.info).trim()
  const space = info.search(/\s/)
  const lang = space === -1 ? info : info.slice(0, space)
  const meta = space === -1 ? '' : info.slice(space).trim()
  // markdown-it keeps the line ending of the last code line; mdast does not.
  return { type: 'code', lang: lang === '' ? null : lang, meta: meta === '' ? null : meta, value: token.content.replace(/\n$/, '') }
}

function listNode(open: Token, cursor: Cursor): List {
  const ordered = open.type === 'ordered_list_open'
  const close = ordered ? 'ordered_list_close' : 'bullet_list_close'
  const items: ListItem[] = []
  while (cursor.pos < cursor.tokens.length) {
    const token = cursor.tokens[cursor.pos++]
    if (token.type === close) break
    if (token.type === 'list_item_open') items.push(taskItem(blockNodes(cursor, 'list_item_close')))
  }
  const start = ordered ? Number(open.attrGet('start') ?? 1) : null
  return { type: 'list', ordered, start, children: items }
}

/** remark-gfm reads a leading `[ ]`/`[x]` as the item's checkbox; markdown-it leaves it as text. */
function taskItem(children: (BlockContent | DefinitionContent)[]): ListItem {
  const item: ListItem = { type: 'listItem', checked: null, children }
  const first = children[0]
  if (first?.type !== 'paragraph') return item
  const head = first.children[0]
  if (head?.type !== 'text') return item
  const marker = TASK_MARKER.exec(head.value)
  // A marker with nothing after it is just text, as in GFM.
  if (!marker || (marker[0].length === head.value.length && first.children.length === 1)) return item
  head.value = head.value.slice(marker[0].length)
  item.checked = marker[1] !== ' '
  return item
}

function tableNode(cursor: Cursor): Table {
  const rows: TableRow[] = []
  let cells: TableCell[] = []
  while (cursor.pos < cursor.tokens.length) {
    const token = cursor.tokens[cursor.pos++]
    if (token.type === 'table_close') break
    if (token.type === 'tr_open') cells = []
    else if (token.type === 'tr_close') rows.push({ type: 'tableRow', children: cells })
    else if (token.type === 'th_open') cells.push({ type: 'tableCell', children: inlineUntil(cursor, 'th_close') })
    else if (token.type === 'td_open') cells.push({ type: 'tableCell', children: inlineUntil(cursor, 'td_close') })
  }
  return { type: 'table', children: rows }
}

/** The phrasing content of the `inline` token between an opener and its `close`. */
function inlineUntil(cursor: Cursor, close: string): PhrasingContent[] {
  let children: PhrasingContent[] = []
  while (cursor.pos < cursor.tokens.length) {
    const token = cursor.tokens[cursor.pos++]
    if (token.type === close) break
    if (token.type === 'inline') children = phrasingNodes({ tokens: token.children ?? [], pos: 0 }, undefined, 0)
  }
  return children
}

function phrasingNodes(cursor: Cursor, close: string | undefined, depth: number): PhrasingContent[] {
  const nodes: PhrasingContent[] = []
  // Wrappers opened past MAX_INLINE_DEPTH; their close tokens come before ours.
  let dropped = 0
  while (cursor.pos < cursor.tokens.length) {
    const token = cursor.tokens[cursor.pos++]
    if (token.nesting === -1 && dropped > 0) dropped--
    else if (token.type === close) break
    else if (token.nesting === 1 && depth >= MAX_INLINE_DEPTH) dropped++
    else {
      const node = phrasingNode(token, cursor, depth)
      if (node) nodes.push(node)
    }
  }
  return nodes
}

function phrasingNode(token: Token, cursor: Cursor, depth: number): PhrasingContent | undefined {
  switch (token.type) {
    case 'text':
      return { type: 'text', value: token.content }
    case 'softbreak':
      // mdast keeps a soft line break as a newline inside the text.
      return { type: 'text', value: '\n' }
    case 'hardbreak':
      return { type: 'break' }
    case 'code_inline':
      return { type: 'inlineCode', value: token.content }
    case 'html_inline':
      return { type: 'html', value: token.content }
    case 'footnote_ref': {
      const label = String(token.meta)
      return { type: 'footnoteReference', identifier: label.toLowerCase(), label }
    }
    case 'image':
      return { type: 'image', url: token.attrGet('src') ?? '', alt: token.content }
    case 'em_open':
      return { type: 'emphasis', children: phrasingNodes(cursor, 'em_close', depth + 1) }
    case 'strong_open':
      return { type: 'strong', children: phrasingNodes(cursor, 'strong_close', depth + 1) }
    case 's_open':
      return { type: 'delete', children: phrasingNodes(cursor, 's_close', depth + 1) }
    case 'link_open':
      return { type: 'link', url: token.attrGet('href') ?? '', children: phrasingNodes(cursor, 'link_close', depth + 1) }
    default:
      return undefined
  }
}

/**
 * The text a heading's Markdown renders to, as a slugger sees it: code keeps its content, HTML
 * tags go, entities and escapes are decoded, images give their alt text.
 */
export function renderedText(markdown: string): string {
  const collect = (tokens: Token[]): string =>
    tokens
      .map((token) => {
        if (token.type === 'text' || token.type === 'code_inline') return token.content
        if (token.type === 'softbreak' || token.type === 'hardbreak') return ' '
        if (token.type === 'image') return collect(token.children ?? [])
        return ''
      })
      .join('')
  return collect(md.parseInline(markdown, { footnotes: new Set() })[0]?.children ?? [])
}
