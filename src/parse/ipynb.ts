/**
 * Jupyter notebook reader: markdown cells read as markdown, code cells become code blocks, and
 * the whole notebook is one block stream so headings and intros carry across cells.
 */
import { assembleSnippets, normalizeLanguage, type Block } from './blocks.js'
import { markdownBlocks } from './markdown.js'
import type { ParsedSnippet, SourceDocument } from './types.js'

interface NotebookCell {
  cell_type?: unknown
  source?: unknown
  /** nbformat 3 code cells keep their code here. */
  input?: unknown
  /** nbformat 3 heading cells. */
  level?: unknown
}

interface Notebook {
  cells?: unknown
  worksheets?: unknown
  metadata?: {
    kernelspec?: { language?: unknown }
    language_info?: { name?: unknown }
    language?: unknown
  }
}

/** Cell magics that switch a cell to another language. */
const CELL_MAGIC_LANGUAGES = new Set(['bash', 'sh', 'javascript', 'js', 'html', 'sql', 'ruby', 'perl', 'latex', 'markdown'])

/** Returns [] for anything that is not a notebook; the caller logs it. */
export function parseNotebook(doc: SourceDocument): ParsedSnippet[] {
  const notebook = readJson(doc.text)
  if (notebook === undefined) return []
  const language = notebookLanguage(notebook)
  const blocks = notebookCells(notebook).flatMap((cell) => cellBlocks(cell, language))
  return assembleSnippets(blocks, { path: doc.path })
}

function readJson(text: string): Notebook | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Notebook) : undefined
  } catch {
    return undefined
  }
}

function notebookCells(notebook: Notebook): NotebookCell[] {
  const sheets: unknown[] = Array.isArray(notebook.worksheets) ? notebook.worksheets : []
  const cells: unknown[] = Array.isArray(notebook.cells) ? notebook.cells : sheets.flatMap((sheet) => sheetCells(sheet))
  return cells.filter((cell): cell is NotebookCell => typeof cell === 'object' && cell !== null)
}

function sheetCells(sheet: unknown): unknown[] {
  const cells = typeof sheet === 'object' && sheet !== null ? (sheet as { cells?: unknown }).cells : undefined
  return Array.isArray(cells) ? cells : []
}

function notebookLanguage(notebook: Notebook): string {
  const metadata = notebook.metadata ?? {}
  const declared = [metadata.kernelspec?.language, metadata.language_info?.name, metadata.language].find(
    (value): value is string => typeof value === 'string' && value.trim() !== '',
  )
  return normalizeLanguage(declared ?? 'python')
}

/** nbformat stores sources either as one string or as a list of lines that keep their newlines. */
function cellText(value: unknown): string {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.filter((line): line is string => typeof line === 'string').join('')
  return ''
}

function cellBlocks(cell: NotebookCell, language: string): Block[] {
  const source = cellText(cell.source ?? cell.input)
  switch (cell.cell_type) {
    case 'markdown':
      return markdownBlocks(source, { mdx: false }).blocks
    case 'heading':
      return source.trim() === '' ? [] : [{ kind: 'heading', depth: typeof cell.level === 'number' ? cell.level : 1, text: source.trim() }]
    case 'code':
      return [{ kind: 'code', language: cellLanguage(source, language), code: source }]
    default:
      return []
  }
}

function cellLanguage(source: string, fallback: string): string {
  const magic = /^%%(\w+)/.exec(source.trimStart())?.[1]
  if (magic === undefined || !CELL_MAGIC_LANGUAGES.has(magic)) return fallback
  return normalizeLanguage(magic)
}
