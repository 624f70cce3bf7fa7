/**
 * Confluence storage format (XHTML with `ac:`/`ri:` elements) to Markdown. Code macros become
 * fenced blocks that keep their language, so they turn into code snippets; panels (info, note,
 * warning...) become labelled prose; macros with nothing to read (toc, jira, children) vanish.
 */
import { parseHTML } from 'linkedom'
import TurndownService from 'turndown'
import { maxOf } from '../text/arrays.js'

/** The slice of the DOM used here; the project compiles without lib.dom, so linkedom's nodes are typed by hand. */
interface DomNode {
  textContent: string | null
  replaceWith(...nodes: DomNode[]): void
  remove(): void
}

interface Element extends DomNode {
  localName: string
  children: ArrayLike<Element>
  childNodes: ArrayLike<DomNode>
  getAttribute(name: string): string | null
  setAttribute(name: string, value: string): void
  appendChild(node: DomNode): DomNode
  querySelectorAll(selector: string): ArrayLike<Element>
}

interface Document {
  body: Element
  createElement(tag: string): Element
  createTextNode(text: string): DomNode
  querySelectorAll(selector: string): ArrayLike<Element>
}

const PANELS = new Set(['info', 'note', 'warning', 'tip', 'panel', 'success', 'error', 'expand'])
const CODE_MACROS = new Set(['code', 'noformat'])

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * The HTML parser knows neither CDATA, namespaced names nor self-closing custom elements: CDATA
 * becomes escaped text, `ac:x` / `ri:x` become `ac-x` / `ri-x` and `<ac:x/>` gets its end tag,
 * all rewritten inside tags only so code stays as written.
 */
function toPlainHtml(storage: string): string {
  return storage
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, text: string) => escapeHtml(text))
    .replace(/<[^>]+>/g, (tag) =>
      tag.replace(/(<\/?|\s)(ac|ri):/g, '$1$2-').replace(/^<((?:ac|ri)-[\w-]+)([\s\S]*?)\s*\/>$/, '<$1$2></$1>'),
    )
}

function childrenNamed(element: Element, name: string): Element[] {
  return Array.from(element.children).filter((child) => child.localName === name)
}

function parameter(macro: Element, name: string): string | undefined {
  return childrenNamed(macro, 'ac-parameter').find((p) => p.getAttribute('ac-name') === name)?.textContent?.trim() || undefined
}

function codeBlock(document: Document, language: string | undefined, code: string): Element {
  const pre = document.createElement('pre')
  const element = document.createElement('code')
  if (language) element.setAttribute('class', `language-${language}`)
  element.textContent = code.replace(/\n$/, '')
  pre.appendChild(element)
  return pre
}

/** A panel as a bold label followed by its body, e.g. "**Warning:** ...". */
function panel(document: Document, label: string, body: Element | undefined): Element {
  const div = document.createElement('div')
  const heading = document.createElement('p')
  const strong = document.createElement('strong')
  strong.textContent = `${label}:`
  heading.appendChild(strong)
  div.appendChild(heading)
  for (const child of Array.from(body?.childNodes ?? [])) div.appendChild(child)
  return div
}

function rewriteMacro(document: Document, macro: Element): void {
  const name = macro.getAttribute('ac-name') ?? ''
  const body = childrenNamed(macro, 'ac-rich-text-body')[0]
  if (CODE_MACROS.has(name)) {
    const code = childrenNamed(macro, 'ac-plain-text-body')[0]?.textContent ?? ''
    macro.replaceWith(codeBlock(document, parameter(macro, 'language'), code))
  } else if (PANELS.has(name)) {
    macro.replaceWith(panel(document, parameter(macro, 'title') ?? name.charAt(0).toUpperCase() + name.slice(1), body))
  } else if (body) {
    macro.replaceWith(...Array.from(body.childNodes))
  } else {
    macro.remove()
  }
}

/** Links to other pages carry their text in a link body or only in the target's title. */
function rewriteLink(document: Document, link: Element): void {
  const text = childrenNamed(link, 'ac-link-body')[0]?.textContent ?? childrenNamed(link, 'ac-plain-text-link-body')[0]?.textContent
    ?? childrenNamed(link, 'ri-page')[0]?.getAttribute('ri-content-title') ?? ''
  link.replaceWith(document.createTextNode(text))
}

function rewriteTasks(document: Document, list: Element): void {
  const ul = document.createElement('ul')
  for (const task of childrenNamed(list, 'ac-task')) {
    const li = document.createElement('li')
    const done = childrenNamed(task, 'ac-task-status')[0]?.textContent?.trim() === 'complete'
    li.appendChild(document.createTextNode(done ? '[x] ' : '[ ] '))
    for (const child of Array.from(childrenNamed(task, 'ac-task-body')[0]?.childNodes ?? [])) li.appendChild(child)
    ul.appendChild(li)
  }
  list.replaceWith(ul)
}

/** GFM pipe tables, which turndown's core rules lack; cells as flat text. */
function tableRule(service: TurndownService): void {
  service.addRule('table', {
    filter: 'table',
    replacement: (_content, node) => {
      const cell = (c: Element) => (c.textContent ?? '').replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|')
      const rows = Array.from((node as unknown as Element).querySelectorAll('tr')).map((tr) => Array.from(tr.children).map(cell))
      if (rows.length === 0) return ''
      const width = maxOf(rows.map((r) => r.length), 0)
      const line = (r: string[]) => `| ${[...r, ...Array(width - r.length).fill('')].join(' | ')} |`
      return `\n\n${[line(rows[0]), line(Array(width).fill('---')), ...rows.slice(1).map(line)].join('\n')}\n\n`
    },
  })
}

export function createTurndown(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' })
  tableRule(service)
  return service
}

export function storageToMarkdown(storage: string, service: TurndownService = createTurndown()): string {
  const document = parseHTML(`<!DOCTYPE html><html><body>${toPlainHtml(storage)}</body></html>`).document as unknown as Document
  // Innermost first, so a code macro inside an expand panel is already a <pre> when the panel moves it.
  for (const macro of Array.from(document.querySelectorAll('ac-structured-macro')).reverse()) rewriteMacro(document, macro)
  for (const list of Array.from(document.querySelectorAll('ac-task-list'))) rewriteTasks(document, list)
  for (const link of Array.from(document.querySelectorAll('ac-link'))) rewriteLink(document, link)
  for (const drop of Array.from(document.querySelectorAll('ac-image, ac-emoticon, ac-placeholder'))) drop.remove()
  const markdown = service.turndown(document.body as unknown as TurndownService.Node)
  // Turndown escapes the task boxes rewriteTasks wrote as text; at the start of an item they are meant.
  return markdown.replace(/^(\s*-\s+)\\\[( |x)\\\] /gm, '$1[$2] ').trim()
}
