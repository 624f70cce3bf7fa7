/**
 * Template tags that static site generators let Markdown pages use, rewritten into the Markdown
 * their rendered page shows, before the page is parsed: Hugo shortcodes (`{{< name >}}`,
 * `{{% name %}}`) and Jekyll's Liquid (`{% tag %}`, `{{ output }}`). Fenced code is never touched
 * (docs about these generators show their tags as code).
 *
 * - Jekyll `{% highlight ruby %}` ... `{% endhighlight %}` becomes a fence; `{% raw %}` markers go.
 * - Hugo `{{< tabs >}}` / `{{% tab name="npm" %}}` (and Docsy's `tabpane`, `tab header= lang=`)
 *   become the tab syntax markdown-dialects.ts groups into one snippet of alternatives.
 * - Hugo `{{< code-toggle >}}` configuration is one code snippet, in TOML, YAML and JSON as the site
 *   shows it (code-toggle.ts).
 * - Hugo `{{< note >}}`, `warning`, `caution`, `tip`, `alert` become block quotes with their label.
 * - A Liquid loop over `site.data.<name>` gives way to that data as a table (jekyll-data.ts).
 * - Every other tag is taken out of the text and the headings, its inner text kept. A block
 *   shortcode or another Liquid loop renders only when the site builds: it is named in the
 *   extraction report (`notRendered`) instead of leaking braces into snippets; inline tags are
 *   variables and links (`{{ site.baseurl }}`) and simply go.
 *
 * Includes (`{% include %}`, `{% include_relative %}`, Hugo `include`, `readfile`, `code`,
 * `codenew`, `code_sample`) are left for markdown-includes.ts, which reads them from the
 * repository. Lines are rewritten one for one where possible, so include lines keep their numbers.
 */
import { CODE_TOGGLE_META } from './code-toggle.js'
import { dataTableMarker } from './jekyll-data.js'
import type { NotRendered } from './types.js'

/** Hugo shortcodes and Liquid tags that read a file: markdown-includes.ts expands them. */
// Each pattern below has no two quantifiers over the same characters in a row: every line of a page is
// tested, and a hostile line of thousands of spaces must cost one pass, not a power of its length.
export const TEMPLATE_INCLUDE = /^([ \t]*)(?:\{%-?[ \t]*(include|include_relative)[ \t]+("[^"]+"|'[^']+'|[^\s%"']+)([^%]*)%\}|\{\{[<%][ \t]*(include|readfile|code|codenew|code_sample|remote-code|snippet)(?=[ \t>%])([^>%]*)[>%]\}\})[ \t]*$/

const FENCE = /^(\s*)(`{3,}|~{3,})/
const HIGHLIGHT = /^[ \t]*\{%-?[ \t]*highlight[ \t]+([\w+#.-]+)[^%]*%\}(.*)$/
const END_HIGHLIGHT = /^(.*?)\{%-?[ \t]*endhighlight[ \t]*-?%\}[ \t]*$/
/** A shortcode on a line of its own: `{{< name params >}}`, `{{% /name %}}`, `{{</ name >}}`, `{{< name />}}`. */
const SHORTCODE_LINE = /^([ \t]*)\{\{([<%])[ \t]*(?:(\/)[ \t]*)?([\w.-][\w./-]*)(?![\w./-])([^>%]*)[>%]\}\}[ \t]*$/
/** A Liquid tag alone on its line (`{% for %}`, `{% endif %}`, `{% assign %}`). */
const LIQUID_LINE = /^[ \t]*\{%-?[ \t]*(\w+)([^%]*)%\}[ \t]*$/
const ADMONITIONS = new Set(['note', 'warning', 'caution', 'tip', 'alert', 'info', 'important', 'danger', 'callout'])
/**
 * A Liquid loop over a data file at the start of a line: `{% for setting in site.data.config_options.global %}`,
 * alone or with the start of its body after it (`{% for s in site.data.options %}| {{ s.name }} |`).
 */
const DATA_LOOP = /^[ \t]*\{%-?[ \t]*for[ \t]+\w+[ \t]+in[ \t]+site\.data\.([\w-]+(?:\.[\w-]+)*)(?:[ \t|][^%]*)?%\}/
/** Liquid block tags among RENDERED_AT_BUILD: each is closed by `end<name>`. */
const BLOCK_TAGS = new Set(['for', 'tablerow', 'capture', 'case'])

/** The line of the `{% end<tag> %}` that closes the block opened on line `start` (blocks nest), or the last line. */
function blockEnd(lines: readonly string[], start: number, tag: string): number {
  const opens = new RegExp(`\\{%-?[ \\t]*${tag}[ \\t%-]`, 'g')
  const closes = new RegExp(`\\{%-?[ \\t]*end${tag}\\b`, 'g')
  let depth = 0
  for (let i = start; i < lines.length; i++) {
    depth += (lines[i].match(opens)?.length ?? 0) - (lines[i].match(closes)?.length ?? 0)
    if (depth <= 0) return i
  }
  return lines.length - 1
}

/** Liquid tags whose output is text the page shows only once the site builds. */
const RENDERED_AT_BUILD = new Set(['for', 'tablerow', 'cycle', 'capture', 'case'])

const param = (params: string, name: string): string | undefined => new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"']+))`).exec(params)?.slice(1).find((v) => v !== undefined)

/**
 * The page with its template tags rendered as far as a reader can without running the site's
 * templates. `notRendered` hears of each tag whose output only the site's build makes.
 */
export function renderTemplates(text: string, notRendered: NotRendered = () => {}, firstLine = 1): string {
  if (!text.includes('{%') && !text.includes('{{')) return text
  const lines = text.split('\n')
  const out: string[] = []
  let fence: string | undefined
  /** Open Hugo tab sets and admonitions: how to write the lines inside them. */
  const open: Array<{ name: string; prefix: string; code?: string }> = []
  const prefix = () => open.map((o) => o.prefix).join('')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    const marker = FENCE.exec(line)?.[2]
    if (fence !== undefined || marker !== undefined) {
      if (fence === undefined) fence = marker
      else if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined
      out.push(prefix() + line)
      continue
    }
    const highlight = HIGHLIGHT.exec(line)
    if (highlight) {
      const end = lines.findIndex((l, n) => n > i && END_HIGHLIGHT.test(l))
      const stop = end === -1 ? lines.length : end
      const last = end === -1 ? '' : END_HIGHLIGHT.exec(lines[end])![1]
      const code = [...(highlight[2] === '' ? [] : [highlight[2]]), ...lines.slice(i + 1, stop), ...(last.trim() === '' ? [] : [last])]
      out.push(`${prefix()}\`\`\`${highlight[1]}`, ...code.map((l) => prefix() + l), `${prefix()}\`\`\``)
      i = stop
      continue
    }
    if (TEMPLATE_INCLUDE.test(line)) {
      out.push(prefix() + line)
      continue
    }
    const shortcode = SHORTCODE_LINE.exec(line)
    if (shortcode) {
      out.push(...shortcodeLine(shortcode, open, prefix, (directive) => notRendered({ line: firstLine + i, directive })))
      continue
    }
    const dataLoop = DATA_LOOP.exec(line)
    if (dataLoop) {
      // The loop's template, filled in by the site's build, gives way to its data (jekyll-data.ts), line for line.
      const end = blockEnd(lines, i, 'for')
      out.push(prefix() + dataTableMarker(dataLoop[1]), ...Array.from({ length: end - i }, () => ''))
      i = end
      continue
    }
    const liquid = LIQUID_LINE.exec(line)
    if (liquid) {
      if (RENDERED_AT_BUILD.has(liquid[1])) {
        notRendered({ line: firstLine + i, directive: line.trim() })
        // The block's body is a template (`* {{ s.name }}`) that only the build fills in: none of it is the page's text.
        const end = BLOCK_TAGS.has(liquid[1]) ? blockEnd(lines, i, liquid[1]) : i
        out.push(...Array.from({ length: end - i + 1 }, () => ''))
        i = end
        continue
      }
      out.push('')
      continue
    }
    const current = open.at(-1)
    const body = current?.code !== undefined ? line : stripInline(line)
    out.push(body.trim() === '' && line.trim() !== '' ? '' : prefix() + body)
  }
  return out.join('\n')
}

/** What one shortcode line becomes, given the shortcodes open around it. */
function shortcodeLine(match: RegExpExecArray, open: Array<{ name: string; prefix: string; code?: string }>, prefix: () => string, notRendered: (directive: string) => void): string[] {
  const [whole, , , closing, rawName, rawParams] = match
  const name = rawName.toLowerCase()
  const params = rawParams.replace(/[\s/]+$/, '')
  if (closing) {
    const at = open.map((o) => o.name).lastIndexOf(name)
    if (at === -1) return ['']
    const closed = open.splice(at)
    // A tab of code (Docsy's `lang=`) or a code-toggle closes its fence.
    return closed[0].code !== undefined ? [`${prefix()}${closed[0].prefix}\`\`\``] : ['']
  }
  // A self-closing shortcode wraps nothing: what it shows (a code-toggle of the site's own
  // `config=` data, a figure) exists only once the site builds.
  if (/\/[ \t]*$/.test(rawParams)) {
    notRendered(whole.trim())
    return ['']
  }
  if (name === 'tabs' || name === 'tabpane') return ['']
  if (name === 'tab') {
    const label = param(params, 'name') ?? param(params, 'header') ?? param(params, 'title') ?? 'Tab'
    const lang = param(params, 'lang')
    const head = `${prefix()}=== "${label.replace(/"/g, "'")}"`
    open.push({ name, prefix: '    ', ...(lang ? { code: lang } : {}) })
    return lang ? [head, `${prefix()}\`\`\`${lang}`] : [head]
  }
  if (name === 'code-toggle') {
    // Its format is known once its content is read (code-toggle.ts), after includes are expanded.
    // Its `file=` names the configuration file (`hugo`), which says less than the section's heading.
    open.push({ name, prefix: '', code: 'text' })
    return [`${prefix()}\`\`\`text ${CODE_TOGGLE_META}`]
  }
  if (ADMONITIONS.has(name)) {
    const title = param(params, 'title')
    const label = `${name[0].toUpperCase()}${name.slice(1)}${title ? `: ${title}` : ''}`
    open.push({ name, prefix: '> ' })
    return [`${prefix()}**${label}:**`]
  }
  // Any other shortcode: its own output exists only once the site builds; what it wraps stays.
  notRendered(whole.trim())
  return ['']
}

/**
 * Inline tags out of a line of prose: a shortcode or Liquid tag is template, never text or a
 * heading's words. Inline ones are variables and links (`{{ site.baseurl }}`), not content, so
 * the report does not list them. Code spans keep theirs (`` `{{ message }}` `` is Vue's syntax
 * shown as code), and so does mdBook's `{{#include}}`. One pass: each tag ends at its first closer.
 */
function stripInline(line: string): string {
  if (!line.includes('{{') && !line.includes('{%')) return line
  const next = markers(line)
  let out = ''
  let at = 0
  for (let marker = next(at); marker !== -1; marker = next(at)) {
    if (line[marker] === '`') {
      const close = line.indexOf('`', marker + 1)
      const end = close === -1 ? line.length : close + 1
      out += line.slice(at, end)
      at = end
      continue
    }
    const closer = line[marker + 1] === '%' ? '%}' : line[marker + 2] === '<' ? '>}}' : line[marker + 2] === '%' ? '%}}' : '}}'
    const close = line[marker + 2] === '#' ? -1 : line.indexOf(closer, marker + 2)
    if (close === -1) {
      out += line.slice(at, marker + 2)
      at = marker + 2
      continue
    }
    out += line.slice(at, marker)
    at = close + closer.length
  }
  return withoutTrailingBlanks(out + line.slice(at))
}

/** The text without its trailing spaces and tabs, by a scan from its end: `/[ \t]+$/` retries at every blank of a long run. */
function withoutTrailingBlanks(text: string): string {
  let end = text.length
  while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--
  return text.slice(0, end)
}

/**
 * The next code span or template tag opener (`{{`, `{%`) at or after a position, or -1. Each kind's
 * next position is remembered until passed, so a line is searched once per kind, not once per tag.
 */
function markers(line: string): (from: number) => number {
  const kinds = ['`', '{{', '{%']
  const found = kinds.map(() => -2)
  return (from) => {
    let best = -1
    kinds.forEach((kind, k) => {
      if (found[k] !== -1 && found[k] < from) found[k] = line.indexOf(kind, from)
      if (found[k] !== -1 && (best === -1 || found[k] < best)) best = found[k]
    })
    return best
  }
}
