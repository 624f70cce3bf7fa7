/**
 * What MDX components show that is written in their props rather than their children: prose in
 * string props (`description="Deploy with one click"`), tables and lists in array props
 * (`rows={[["name", "what it does"], ...]}`), and the page metadata modules export
 * (`export const title = "..."`). Props are JavaScript; only literals are read (strings, numbers,
 * arrays, objects), never evaluated: anything else makes the prop unreadable and it is left out.
 */
import { maxOf } from '../text/arrays.js'

type Literal = string | number | boolean | null | Literal[] | { [key: string]: Literal }

/** Reads a JavaScript literal expression; undefined when it is anything else. */
export function readLiteral(source: string): Literal | undefined {
  const reader = new LiteralReader(source)
  try {
    const value = reader.value()
    reader.space()
    return reader.done() ? value : undefined
  } catch {
    return undefined
  }
}

class LiteralReader {
  private pos = 0
  private depth = 0

  constructor(private readonly text: string) {}

  done(): boolean {
    return this.pos >= this.text.length
  }

  space(): void {
    for (;;) {
      const rest = this.text.slice(this.pos)
      const skipped = /^(\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/)/.exec(rest)
      if (!skipped) return
      this.pos += skipped[0].length
    }
  }

  value(): Literal {
    this.space()
    if (++this.depth > 32) throw new Error('too deep')
    try {
      const c = this.text[this.pos]
      if (c === '[') return this.array()
      if (c === '{') return this.object()
      if (c === '"' || c === "'" || c === '`') return this.string()
      const word = /^(-?\d+(\.\d+)?|true|false|null)/.exec(this.text.slice(this.pos))
      if (!word) throw new Error('not a literal')
      this.pos += word[0].length
      return word[0] === 'true' ? true : word[0] === 'false' ? false : word[0] === 'null' ? null : Number(word[0])
    } finally {
      this.depth--
    }
  }

  private expect(char: string): void {
    this.space()
    if (this.text[this.pos] !== char) throw new Error(`expected ${char}`)
    this.pos++
  }

  private array(): Literal[] {
    this.expect('[')
    const items: Literal[] = []
    for (;;) {
      this.space()
      if (this.text[this.pos] === ']') break
      items.push(this.value())
      this.space()
      if (this.text[this.pos] === ',') this.pos++
      else if (this.text[this.pos] !== ']') throw new Error('expected , or ]')
    }
    this.pos++
    return items
  }

  private object(): { [key: string]: Literal } {
    this.expect('{')
    const entries: Record<string, Literal> = {}
    for (;;) {
      this.space()
      if (this.text[this.pos] === '}') break
      const quote = this.text[this.pos]
      let key: string
      if (quote === '"' || quote === "'") key = this.string()
      else {
        const name = /^[A-Za-z_$][\w$]*/.exec(this.text.slice(this.pos))
        if (!name) throw new Error('expected a key')
        key = name[0]
        this.pos += key.length
      }
      this.expect(':')
      entries[key] = this.value()
      this.space()
      if (this.text[this.pos] === ',') this.pos++
      else if (this.text[this.pos] !== '}') throw new Error('expected , or }')
    }
    this.pos++
    return entries
  }

  private string(): string {
    const quote = this.text[this.pos++]
    let out = ''
    while (this.pos < this.text.length && this.text[this.pos] !== quote) {
      const c = this.text[this.pos++]
      if (quote === '`' && c === '$' && this.text[this.pos] === '{') throw new Error('template with an expression')
      if (c !== '\\') {
        out += c
        continue
      }
      const escaped = this.text[this.pos++]
      out += escaped === 'n' ? '\n' : escaped === 't' ? '\t' : escaped
    }
    if (this.text[this.pos] !== quote) throw new Error('unterminated string')
    this.pos++
    return out
  }
}

const isRow = (value: Literal): value is Literal[] => Array.isArray(value) && value.every((cell) => typeof cell !== 'object' || cell === null)
const cellText = (value: Literal): string => (value === null ? '' : String(value)).replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim()
const isRecord = (value: Literal): value is { [key: string]: Literal } => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A literal as Markdown a reader would see: arrays of rows or of flat objects as tables (first
 * row, or the keys, as header), arrays of strings as lists, strings as they are.
 */
export function literalMarkdown(value: Literal): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim()
  if (!Array.isArray(value) || value.length === 0) return undefined
  if (value.every((row) => isRow(row)) && value.every((row) => (row as Literal[]).length > 1)) {
    const rows = value as Literal[][]
    const width = maxOf(rows.map((row) => row.length), 0)
    const line = (row: Literal[]) => `| ${Array.from({ length: width }, (_, i) => cellText(row[i] ?? '')).join(' | ')} |`
    return [line(rows[0]), `|${' --- |'.repeat(width)}`, ...rows.slice(1).map(line)].join('\n')
  }
  if (value.every((item) => isRecord(item) && Object.values(item).every((v) => typeof v !== 'object' || v === null))) {
    const records = value as Array<Record<string, Literal>>
    const keys = [...new Set(records.flatMap((record) => Object.keys(record)))]
    const line = (cells: string[]) => `| ${cells.join(' | ')} |`
    return [line(keys), `|${' --- |'.repeat(keys.length)}`, ...records.map((record) => line(keys.map((key) => cellText(record[key] ?? ''))))].join('\n')
  }
  if (value.every((item) => typeof item === 'string')) return (value as string[]).map((item) => `- ${item.trim()}`).join('\n')
  return undefined
}

/** Props that hold words for the reader, whatever their length. */
const PROSE_PROPS = new Set(['title', 'description', 'summary', 'caption', 'content', 'text', 'label', 'heading', 'subtitle'])
/** Props that configure rather than say something. */
const TECHNICAL_PROPS = new Set(['id', 'class', 'classname', 'style', 'href', 'src', 'to', 'type', 'variant', 'icon', 'size', 'color', 'slot', 'key', 'lang', 'language', 'value', 'name', 'width', 'height', 'target', 'rel', 'alt'])

/** The prose and tables a component's props show, in prop order. */
export function propsMarkdown(props: Array<{ name: string; value: string | { expression: string } | null }>): string[] {
  const parts: string[] = []
  for (const { name, value } of props) {
    if (value === null || TECHNICAL_PROPS.has(name.toLowerCase())) continue
    if (typeof value === 'string') {
      const words = value.trim().split(/\s+/).filter((word) => /[\p{L}]/u.test(word)).length
      if (PROSE_PROPS.has(name.toLowerCase()) ? words >= 1 : words >= 4) parts.push(value.trim())
      continue
    }
    const literal = readLiteral(value.expression)
    const markdown = literal === undefined ? undefined : literalMarkdown(literal)
    if (markdown !== undefined && /[\p{L}]/u.test(markdown) && (typeof literal !== 'string' || literal.trim().split(/\s+/).length >= 4 || PROSE_PROPS.has(name.toLowerCase()))) {
      parts.push(markdown)
    }
  }
  return parts
}

/** `export const title = "..."` and `description` of an MDX module: its page metadata. */
export function exportedMetadata(esm: string): { title?: string; description?: string } {
  const found: { title?: string; description?: string } = {}
  for (const match of esm.matchAll(/export\s+const\s+(title|description)\s*=\s*([^;\n]+)/g)) {
    const value = readLiteral(match[2].trim())
    if (typeof value === 'string' && value.trim() !== '') found[match[1] as 'title' | 'description'] = value.trim()
  }
  return found
}
