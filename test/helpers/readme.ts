/** README.md read the way the tests check it: sections, table rows, code spans and code blocks. */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PROJECT_ROOT } from './cli.js'

export const README = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8')

/** The text of a `## title` section, up to the next heading of the same level. */
export function readmeSection(title: string, text = README): string {
  const start = text.indexOf(`\n## ${title}\n`)
  if (start < 0) throw new Error(`README has no section "## ${title}"`)
  const end = text.indexOf('\n## ', start + 1)
  return text.slice(start, end < 0 ? undefined : end)
}

/** Cells of every body row of the Markdown tables in `text` whose header starts with `header`. */
export function tableRows(text: string, header: string): string[][] {
  const rows: string[][] = []
  let inTable = false
  for (const line of text.split('\n')) {
    if (line.startsWith(`| ${header}`)) inTable = true
    else if (!line.startsWith('|')) inTable = false
    else if (inTable && !/^\|[-| ]+\|$/.test(line)) {
      rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim().replaceAll('\\|', '|')))
    }
  }
  return rows
}

/** The `code spans` of a Markdown fragment. */
export const codeSpans = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1])

/** Fenced code blocks of a language (`sh`, `yaml`...). */
export const codeBlocks = (language: string, text = README): string[] =>
  [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1])

/** A command line runs `lectern` when it starts with it (after VAR=value assignments) or pipes into it. */
export const runsLectern = (line: string): boolean => /^(\w+=\S*\s+)*lectern\s/.test(line) || /\|\s*lectern\s/.test(line)

/** Every `lectern` command line of the README's shell code blocks, without its trailing comment. */
export function shellExamples(text = README): string[] {
  return codeBlocks('sh', text)
    .flatMap((block) => block.split('\n'))
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter(runsLectern)
}
