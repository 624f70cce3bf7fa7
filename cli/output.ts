/**
 * Output for people: aligned tables with a header, human sizes and dates, colour only when
 * stdout is a terminal (ansis honours NO_COLOR and FORCE_COLOR). Scripts use --json instead.
 */
import ansis, { Ansis } from 'ansis'
import prettyBytes from 'pretty-bytes'

/**
 * ansis alone also colours piped output when it sees a CI service (CI=true), which puts escape
 * codes into files and pipes; so colour needs a terminal, unless FORCE_COLOR asks for it.
 */
const forced = process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0'
const paint = process.stdout.isTTY === true || forced ? ansis : new Ansis(0)

export interface Column<T> {
  header: string
  value(row: T): string
  /** Right-align (numbers, sizes). */
  right?: boolean
}

const visibleLength = (text: string) => [...ansis.strip(text)].length

/** The terminal's width when stdout is one; undefined for a pipe or a file, whose lines are never wrapped. */
const terminalWidth = (): number | undefined => (process.stdout.isTTY === true ? process.stdout.columns : undefined)

/** Narrower than this, a wrapped last column would be a word a line: the terminal's own wrapping reads better. */
const MIN_WRAPPED = 20

/** Text in lines of at most `width` visible characters, broken at spaces; a longer word keeps a line of its own. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let current = ''
  for (const word of text.split(' ')) {
    if (current !== '' && visibleLength(current) + 1 + visibleLength(word) > width) {
      lines.push(current)
      current = word
    } else current = current === '' ? word : `${current} ${word}`
  }
  return [...lines, current]
}

/**
 * Rows under a bold header, columns separated by two spaces; the last column is never padded. On
 * a terminal narrower than a row, the last (left-aligned) column wraps under itself.
 */
export function table<T>(rows: readonly T[], columns: ReadonlyArray<Column<T>>, width = terminalWidth()): string {
  const cells = rows.map((row) => columns.map((c) => c.value(row).replace(/\s+/g, ' ')))
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => visibleLength(r[i]))))
  const last = columns.length - 1
  const indent = widths.slice(0, last).reduce((sum, w) => sum + w + 2, 0)
  const wrapAt = width !== undefined && !columns[last].right && width - indent >= MIN_WRAPPED ? width - indent : undefined
  const line = (values: string[]) => {
    const head = values
      .slice(0, last)
      .map((v, i) => {
        const pad = ' '.repeat(widths[i] - visibleLength(v))
        return columns[i].right ? pad + v : v + pad
      })
      .join('  ')
    const tail = values[last]
    if (columns[last].right) return `${head}${last > 0 ? '  ' : ''}${' '.repeat(widths[last] - visibleLength(tail))}${tail}`.trimEnd()
    const [first, ...more] = wrapAt === undefined ? [tail] : wrap(tail, wrapAt)
    return [`${head}${last > 0 ? '  ' : ''}${first}`.trimEnd(), ...more.map((l) => ' '.repeat(indent) + l)].join('\n')
  }
  return [paint.bold(line(columns.map((c) => c.header))), ...cells.map(line)].join('\n')
}

/** A record for people: one "Label:  value" line per field, labels aligned; fields without a value are left out. */
export function record(fields: ReadonlyArray<readonly [string, string | undefined | null]>): string {
  const shown = fields.filter((f): f is readonly [string, string] => f[1] !== undefined && f[1] !== null && f[1] !== '')
  const width = Math.max(0, ...shown.map(([label]) => label.length + 1))
  return shown.map(([label, value]) => `${paint.bold(`${label}:`.padEnd(width))}  ${value}`).join('\n')
}

export const humanSize = (bytes: number): string => prettyBytes(bytes)

/** A date for people: "2027-12-31 14:05 UTC (in 1 year)"; "-" for none. */
export function humanTimestamp(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '-'
  const time = Date.parse(iso)
  if (!Number.isFinite(time)) return iso
  return `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC (${humanDate(iso, now)})`
}

/** A library, version or job state in a colour that says whether it is fine, under way or failed. */
export function stateColour(state: string): string {
  if (/^(finalized|succeeded|valid|ready|stored)$/.test(state)) return paint.green(state)
  if (/^(error|failed|invalid|expired|revoked)$/.test(state)) return paint.red(state)
  return paint.yellow(state)
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
]
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' })

/** "3 minutes ago", "in 2 days"; "-" for no date. */
export function humanDate(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '-'
  const diff = Date.parse(iso) - now
  if (!Number.isFinite(diff)) return iso
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms || unit === 'second') return relative.format(Math.round(diff / ms), unit)
  }
  return iso
}

/** A duration in seconds as "4 s", "2 min 5 s", "1 h 3 min". */
export function humanDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
}

export const colour = paint
