/**
 * Jekyll's data tables: a page that loops over `site.data.<name>` (`{% for setting in
 * site.data.config_options.global %}`) shows a table only the site's build fills in, from
 * `_data/config_options/global.yml`. Lectern cannot run the loop's template, so it shows the data
 * itself in its place: a list of records as a Markdown table (a column per key), a map as rows
 * of key and value, a list of words as a list. The words of every row reach the index, and an AI
 * tool reads the table as the page meant it.
 *
 * markdown-templates.ts leaves a marker where the loop was (`DATA_TABLE`); the include expansion
 * reads the file from the repository like any include, so a missing file is an unresolved
 * include in the extraction report, with the paths tried.
 */
import path from 'node:path/posix'
import { parse as parseYaml } from 'yaml'
import { ancestors, readInclude, type DirectiveAt, type Selected } from './includes.js'

/** The marker markdown-templates.ts writes for a loop over `site.data.<name>`: an HTML comment, so unexpanded it shows nothing. */
export const dataTableMarker = (name: string) => `<!-- lectern-data: ${name} -->`
export const DATA_TABLE = /^([ \t]*)<!-- lectern-data: ([\w.-]+) -->$/

const EXTENSIONS = ['yml', 'yaml', 'json']
/** Cells longer than this are cut: a table row is a summary, and its page has the rest. */
const MAX_CELL = 400

/**
 * The candidate files of `site.data.a.b.c`, longest name first: `_data/a/b/c.yml`, then
 * `_data/a/b.yml` (key `c`), then `_data/a.yml` (keys `b.c`); under each site root, then the
 * page's folder and its ancestors.
 */
function candidates(page: string, name: string, siteRoots: readonly string[]): Array<{ file: string; keys: string[] }> {
  const parts = name.split('.')
  const folder = path.dirname(page) === '.' ? '' : path.dirname(page)
  const bases = [...new Set([...siteRoots, folder, ...ancestors(folder), ''])]
  const found: Array<{ file: string; keys: string[] }> = []
  for (let split = parts.length; split >= 1; split--) {
    for (const base of bases) {
      for (const extension of EXTENSIONS) found.push({ file: path.join(base, '_data', ...parts.slice(0, split)) + `.${extension}`, keys: parts.slice(split) })
    }
  }
  return found.filter(({ file }) => !file.startsWith('../'))
}

/** The lines that stand for the loop: the data at `name` as Markdown, or nothing when no file holds it. */
export function dataTable(at: DirectiveAt, name: string, indent: string, siteRoots: readonly string[], reader: Parameters<typeof readInclude>[0]): string[] {
  const files = candidates(at.page, name, siteRoots)
  const keysOf = new Map(files.map(({ file, keys }) => [file, keys]))
  let lines: string[] = []
  const select = (text: string, file: string): Selected => {
    const keys = keysOf.get(file) ?? []
    try {
      let data: unknown = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text, { logLevel: 'error' })
      for (const key of keys) data = isRecord(data) ? data[key] : undefined
      if (data === undefined || data === null) return { problem: keys.length > 0 ? `has no ${keys.join('.')}` : 'is empty' }
      lines = markdownOf(data)
      return text
    } catch (err) {
      // Not YAML or JSON, a YAML alias bomb (the parser's alias limit), or nesting too deep to write out.
      return { problem: `cannot be read as a table: ${(err as Error).message.split('\n')[0]}` }
    }
  }
  if (!readInclude(reader, at, `site.data.${name}`, files.map(({ file }) => file), select)) return []
  return ['', ...lines.map((line) => indent + line), '']
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

function cell(value: unknown): string {
  let text: string
  if (Array.isArray(value)) text = value.map(cell).join('; ')
  else if (isRecord(value)) text = Object.entries(value).map(([key, inner]) => `${key}: ${cell(inner)}`).join(', ')
  else text = value === null || value === undefined ? '' : String(value)
  const flat = text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|')
  return flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL - 1)}…` : flat
}

function table(header: string[], rows: string[][]): string[] {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- |').join('')}`, ...rows.map((row) => `| ${row.join(' | ')} |`)]
}

/** Records as a table, a map as key and value rows, anything else as a list. */
function markdownOf(data: unknown): string[] {
  if (Array.isArray(data) && data.length > 0 && data.every(isRecord)) {
    const columns = [...new Set(data.flatMap((record) => Object.keys(record)))]
    return table(columns, data.map((record) => columns.map((column) => cell(record[column]))))
  }
  if (isRecord(data)) {
    const entries = Object.entries(data)
    if (entries.length > 0 && entries.every(([, value]) => isRecord(value))) {
      const columns = [...new Set(entries.flatMap(([, value]) => Object.keys(value as Record<string, unknown>)))]
      return table(['name', ...columns], entries.map(([key, value]) => [cell(key), ...columns.map((column) => cell((value as Record<string, unknown>)[column]))]))
    }
    return table(['name', 'value'], entries.map(([key, value]) => [cell(key), cell(value)]))
  }
  return (Array.isArray(data) ? data : [data]).map((item) => `- ${cell(item)}`)
}
