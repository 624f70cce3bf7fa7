/**
 * Entry point of the parsers: picks the reader for a document by its file extension.
 */
import { parseNotebook } from './ipynb.js'
import { parseMarkdown } from './markdown.js'
import { parseRst } from './rst.js'
import type { ParsedSnippet, SourceDocument } from './types.js'

const READERS: Record<string, (doc: SourceDocument) => ParsedSnippet[]> = {
  '.md': (doc) => parseMarkdown(doc, { mdx: false }),
  '.markdown': (doc) => parseMarkdown(doc, { mdx: false }),
  '.mdx': (doc) => parseMarkdown(doc, { mdx: true }),
  '.rst': parseRst,
  '.ipynb': parseNotebook,
  // Plain text reads as markdown: its paragraphs become info snippets, and llms.txt-style files are markdown anyway.
  '.txt': (doc) => parseMarkdown(doc, { mdx: false }),
}

/** Lower-case extensions, with the dot, that `parseDocument` reads. */
export const PARSEABLE_EXTENSIONS: readonly string[] = Object.keys(READERS)

function extensionOf(path: string): string {
  const name = path.split('/').pop() ?? path
  const dot = name.lastIndexOf('.')
  return dot <= 0 ? '' : name.slice(dot).toLowerCase()
}

/** Snippets of one document; [] for a file type no parser reads. */
export function parseDocument(doc: SourceDocument): ParsedSnippet[] {
  const read = READERS[extensionOf(doc.path)]
  return read ? read(doc) : []
}
