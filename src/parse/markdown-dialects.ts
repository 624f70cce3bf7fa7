/**
 * The block syntaxes docs generators add to Markdown, rewritten into plain Markdown that both
 * parsers (markdown-it and remark-mdx) read the same way, before either sees the text:
 *
 * - admonitions become block quotes whose first line names them ("Tip: Title"), so their text
 *   reads as prose with its title: MkDocs `!!! note "Title"` and `??? tip` (body indented),
 *   pymdownx `/// note | Title` ... `///`, Docusaurus `:::tip Title` / `:::tip[Title]` and
 *   VitePress `::: warning Title` ... `:::` (GitHub `> [!NOTE]` is a quote already);
 * - tabbed alternatives become consecutive fences marked as one group (`lectern-group`), each
 *   titled with its tab's label: pymdownx `=== "Python 3.10+"` (body indented), pymdownx
 *   `/// tab | Label`, VitePress `::: code-group` (labels in `[brackets]` on the fences);
 *   prose inside a tab keeps its label in front.
 *
 * Fenced code is never rewritten: a `:::` or `===` line inside a fence is code.
 */
import { append, minOf } from '../text/arrays.js'

/** Fence meta that groups code blocks into one snippet of alternatives (read by markdown.ts). */
export const GROUP_META = 'lectern-group'

/**
 * A fence's ` title="..."` meta for a label (a tab's, a file's). A backtick fence's info string
 * cannot hold a backtick (CommonMark), so the label's code marks go: a tab labelled
 * `` `docs/page.md` `` would otherwise turn its fence into a paragraph.
 */
export const titleMeta = (label: string): string => ` title="${label.replace(/`/g, '').replace(/"/g, "'")}"`

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/
const ADMONITION = /^(\s*)(!!!|\?\?\?\+?)\s+([\w-]+)(?:\s+"([^"]*)")?\s*$/
const TAB = /^(\s*)===[!+]?\s+"([^"]*)"\s*$/
const BLOCK_START = /^(\s*)(\/{3,})\s*([\w-]+)(?:\s*\|\s*(.*?))?\s*$/
/** `:::tip Title`, `::: warning`, `:::note[Title]`, and Nuxt's MDC components `::card{icon="x"}` (two colons or more). */
const CONTAINER_START = /^(\s*)(:{2,})\s*([\w-]+)(?:\{[^}\n]*\})?(?:\[([^\]]*)\])?(?:\s+(.*?))?\s*$/

/** pymdownx/Docusaurus/VitePress names that are asides rather than structure. */
const ASIDE_LABELS: Record<string, string> = {
  note: 'Note',
  tip: 'Tip',
  info: 'Info',
  hint: 'Hint',
  important: 'Important',
  warning: 'Warning',
  caution: 'Caution',
  danger: 'Danger',
  attention: 'Attention',
  error: 'Error',
  success: 'Success',
  check: 'Check',
  question: 'Question',
  faq: 'FAQ',
  failure: 'Failure',
  bug: 'Bug',
  example: 'Example',
  quote: 'Quote',
  abstract: 'Abstract',
  summary: 'Summary',
  todo: 'Todo',
  details: 'Details',
  admonition: 'Note',
  seealso: 'See also',
  secondary: 'Note',
}

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0].length
const isBlank = (line: string | undefined) => line === undefined || line.trim() === ''

/**
 * Asides and tabs nest a few levels deep in real docs; deeper nesting is left as written, so the
 * rewrite never recurses as deep as its input goes (3,000 nested `!!! note` lines would overflow
 * the stack).
 */
const MAX_NESTING = 16

export function normalizeDialects(text: string): string {
  const counter = { groups: 0, depth: 0 }
  return rewrite(text.split('\n'), counter).join('\n')
}

interface Counter {
  groups: number
  /** How many rewrites enclose the current one. */
  depth: number
}

function rewrite(lines: string[], counter: Counter): string[] {
  if (counter.depth >= MAX_NESTING) return lines
  counter.depth++
  try {
    return rewriteLines(lines, counter)
  } finally {
    counter.depth--
  }
}

function rewriteLines(lines: string[], counter: Counter): string[] {
  const out: string[] = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]
    const fence = FENCE.exec(line)
    if (fence) {
      const end = fenceEnd(lines, i, fence[2])
      append(out, lines.slice(i, end))
      i = end
      continue
    }
    const step = admonition(lines, i, counter) ?? tabs(lines, i, counter) ?? block(lines, i, counter) ?? container(lines, i, counter)
    if (step) {
      append(out, step.lines)
      i = step.next
      continue
    }
    out.push(line)
    i++
  }
  return out
}

interface Step {
  lines: string[]
  next: number
}

/** The index after a fence that opens at `start` (the end of the text when it never closes). */
function fenceEnd(lines: string[], start: number, marker: string): number {
  for (let i = start + 1; i < lines.length; i++) {
    const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[i])
    if (close && close[1][0] === marker[0] && close[1].length >= marker.length) return i + 1
  }
  return lines.length
}

/** The lines indented deeper than `indent` after `start` (blank lines included): an indented body. */
function indentedBody(lines: string[], start: number, indent: number): { body: string[]; next: number } {
  let end = start
  while (end < lines.length && (isBlank(lines[end]) || indentOf(lines[end]) > indent)) end++
  while (end > start && isBlank(lines[end - 1])) end--
  return { body: dedent(lines.slice(start, end)), next: end }
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((line) => !isBlank(line)).map(indentOf)
  const common = minOf(indents, 0)
  return lines.map((line) => line.slice(Math.min(common, indentOf(line))))
}

const reindent = (lines: string[], prefix: string) => lines.map((line) => (line === '' ? '' : prefix + line))

/** An aside as a block quote whose first paragraph is its label and title. */
function quote(kind: string, title: string | undefined, body: string[], prefix: string, counter: Counter): string[] {
  const label = ASIDE_LABELS[kind.toLowerCase()] ?? kind[0].toUpperCase() + kind.slice(1)
  const heading = title && title.trim() !== '' && title.trim().toLowerCase() !== kind.toLowerCase() ? `${label}: ${title.trim()}` : label
  const inner = rewrite(body, counter)
  return reindent(['', `> ${heading}`, '>', ...inner.map((line) => (line === '' ? '>' : `> ${line}`)), ''], prefix)
}

function admonition(lines: string[], i: number, counter: Counter): Step | undefined {
  const match = ADMONITION.exec(lines[i])
  if (!match) return undefined
  const { body, next } = indentedBody(lines, i + 1, indentOf(lines[i]))
  return { lines: quote(match[3], match[4], body, match[1], counter), next }
}

interface Tab {
  label: string
  body: string[]
}

/** Consecutive `=== "Label"` items form one group. */
function tabs(lines: string[], i: number, counter: Counter): Step | undefined {
  if (!TAB.test(lines[i])) return undefined
  const indent = indentOf(lines[i])
  const items: Tab[] = []
  let next = i
  for (;;) {
    const match = TAB.exec(lines[next] ?? '')
    if (!match || indentOf(lines[next]) !== indent) break
    const { body, next: after } = indentedBody(lines, next + 1, indent)
    items.push({ label: match[2], body })
    next = after
    while (isBlank(lines[next]) && TAB.test(lines[next + 1] ?? '')) next++
  }
  return { lines: tabGroup(items, ' '.repeat(indent), counter), next }
}

/**
 * A tab set as plain Markdown: its fences carry the tab label as title and one group id, so
 * they become one snippet of alternatives; prose keeps the label in front of its first line.
 */
function tabGroup(items: Tab[], prefix: string, counter: Counter): string[] {
  const group = ++counter.groups
  const out: string[] = ['']
  for (const { label, body } of items) {
    let labelled = false
    const inner = rewrite(body, counter)
    for (let j = 0; j < inner.length; j++) {
      const fence = FENCE.exec(inner[j])
      if (fence) {
        const end = fenceEnd(inner, j, fence[2])
        append(out, [withMeta(inner[j], label, group), ...inner.slice(j + 1, end)])
        j = end - 1
        continue
      }
      if (!labelled && !isBlank(inner[j]) && !/^\s*[>|<]/.test(inner[j])) {
        out.push(`${label}: ${inner[j].trimStart()}`)
        labelled = true
        continue
      }
      out.push(inner[j])
    }
    out.push('')
  }
  return reindent(out, prefix)
}

/** Adds a tab's title (unless the fence names one) and the group id to a fence's info string. */
function withMeta(fenceLine: string, label: string | undefined, group: number): string {
  const match = FENCE.exec(fenceLine)!
  let info = match[3].trim()
  // VitePress code groups label their fences `[label]`.
  const bracket = /\s*\[([^\]]+)\]\s*/.exec(info)
  if (bracket) {
    info = info.replace(bracket[0], ' ').trim()
    label = bracket[1]
  }
  const hasTitle = /\b(?:title|filename)=/.test(info)
  const title = label !== undefined && !hasTitle ? titleMeta(label) : ''
  const language = info === '' ? 'text' : info
  return `${match[1]}${match[2]}${language}${title} ${GROUP_META}="${group}"`
}

/** pymdownx blocks: `/// name | Title` ... `///` (more slashes nest); consecutive `tab` blocks are one tab set. */
function block(lines: string[], i: number, counter: Counter): Step | undefined {
  const start = BLOCK_START.exec(lines[i])
  if (!start) return undefined
  const end = closingLine(lines, i, (line) => new RegExp(`^\\s*${start[2]}\\s*$`).test(line), (line) => BLOCK_START.exec(line)?.[2] === start[2])
  if (end === undefined) return undefined
  const name = start[3].toLowerCase()
  const body = dedent(trimOptions(lines.slice(i + 1, end)))
  if (name !== 'tab') {
    if (!(name in ASIDE_LABELS)) return { lines: rewrite(body, counter), next: end + 1 }
    return { lines: quote(name, start[4], body, start[1], counter), next: end + 1 }
  }
  const items: Tab[] = [{ label: start[4] ?? '', body }]
  let next = end + 1
  for (;;) {
    let probe = next
    while (probe < lines.length && isBlank(lines[probe])) probe++
    const more = BLOCK_START.exec(lines[probe] ?? '')
    if (!more || more[3].toLowerCase() !== 'tab' || more[2] !== start[2]) break
    const close = closingLine(lines, probe, (line) => new RegExp(`^\\s*${more[2]}\\s*$`).test(line), (line) => BLOCK_START.exec(line)?.[2] === more[2])
    if (close === undefined) break
    items.push({ label: more[4] ?? '', body: dedent(trimOptions(lines.slice(probe + 1, close))) })
    next = close + 1
  }
  return { lines: tabGroup(items, start[1], counter), next }
}

/** pymdownx block options (`    attrs: {class: x}`) precede the body and are not content. */
function trimOptions(lines: string[]): string[] {
  let i = 0
  while (i < lines.length && /^\s*(attrs|type|open|select|new):\s/.test(lines[i])) i++
  return lines.slice(i)
}

/**
 * The index of the line closing the block opened at `start`, counting nested openers that
 * close with the same line; undefined when it never closes (then it is not a block).
 */
function closingLine(lines: string[], start: number, isClose: (line: string) => boolean, isOpen: (line: string) => boolean): number | undefined {
  let depth = 0
  for (let i = start + 1; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i])
    if (fence) {
      i = fenceEnd(lines, i, fence[2]) - 1
      continue
    }
    if (isOpen(lines[i])) depth++
    else if (isClose(lines[i])) {
      if (depth === 0) return i
      depth--
    }
  }
  return undefined
}

/** Docusaurus and VitePress containers: `:::name Title` ... `:::` (`::::` nests `:::`). */
function container(lines: string[], i: number, counter: Counter): Step | undefined {
  const start = CONTAINER_START.exec(lines[i])
  if (!start) return undefined
  const colons = start[2].length
  const end = closingLine(
    lines,
    i,
    (line) => {
      const close = /^\s*(:{2,})\s*$/.exec(line)
      return close !== null && close[1].length === colons
    },
    (line) => {
      const open = CONTAINER_START.exec(line)
      return open !== null && open[2].length === colons
    },
  )
  if (end === undefined) return undefined
  const name = start[3].toLowerCase()
  const body = withoutComponentProps(dedent(lines.slice(i + 1, end)))
  const title = start[4] ?? start[5]
  if (name === 'code-group') return { lines: codeGroup(body, start[1], counter), next: end + 1 }
  if (name in ASIDE_LABELS) return { lines: quote(name, title, body, start[1], counter), next: end + 1 }
  return { lines: rewrite(body, counter), next: end + 1 }
}

/**
 * An MDC component's YAML props (`---` ... `---` right after its opening line) and slot markers
 * (`#title`) are its configuration, not its text.
 */
function withoutComponentProps(body: string[]): string[] {
  const first = body.findIndex((line) => line.trim() !== '')
  let rest = body
  if (first !== -1 && body[first].trim() === '---') {
    const close = body.findIndex((line, n) => n > first && line.trim() === '---')
    if (close !== -1) rest = body.slice(close + 1)
  }
  let fence: string | undefined
  return rest.map((line) => {
    const marker = FENCE.exec(line)?.[2]
    if (marker !== undefined && (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker))) fence = fence === undefined ? marker : undefined
    // `#endif` in a fence is code; a slot marker is a line of its own outside one.
    return fence === undefined && marker === undefined && /^\s*#[\w-]+\s*$/.test(line) ? '' : line
  })
}

/** VitePress `::: code-group`: every fence inside is one alternative, labelled by its `[label]`. */
function codeGroup(body: string[], prefix: string, counter: Counter): string[] {
  const group = ++counter.groups
  const inner = rewrite(body, counter)
  const out: string[] = ['']
  for (let j = 0; j < inner.length; j++) {
    const fence = FENCE.exec(inner[j])
    if (!fence) {
      out.push(inner[j])
      continue
    }
    const end = fenceEnd(inner, j, fence[2])
    out.push(withMeta(inner[j], undefined, group), ...inner.slice(j + 1, end))
    j = end - 1
  }
  out.push('')
  return reindent(out, prefix)
}
