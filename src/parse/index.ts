/**
 * Entry point of the parsers: picks the reader for a document by its file extension.
 */
import { parseAsciidoc } from './asciidoc.js'
import { parseNotebook } from './ipynb.js'
import { looksLikeMdx, parseMarkdown } from './markdown.js'
import { parseRst } from './rst.js'
import { inSphinxSite } from './sphinx-site.js'
import type { ParseContext, ParsedSnippet, SourceDocument } from './types.js'

const READERS: Record<string, (doc: SourceDocument, context: ParseContext) => ParsedSnippet[]> = {
  '.md': (doc, context) => parseMarkdown(doc, { mdx: looksLikeMdx(doc.text) }, context),
  '.markdown': (doc, context) => parseMarkdown(doc, { mdx: looksLikeMdx(doc.text) }, context),
  '.mdx': (doc, context) => parseMarkdown(doc, { mdx: true }, context),
  '.rst': parseRst,
  '.adoc': parseAsciidoc,
  '.asciidoc': parseAsciidoc,
  '.ipynb': (doc) => parseNotebook(doc),
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

/**
 * Snippets of one document; [] for a file type no parser reads. `context` gives what a page may
 * consult beyond its text: the other files of its repository, for include directives.
 */
export function parseDocument(doc: SourceDocument, context: ParseContext = {}): ParsedSnippet[] {
  const extension = extensionOf(doc.path)
  const read = isSphinxPage(doc.path, extension, context) ? parseRst : READERS[extension]
  return read ? read(doc, context) : []
}

/** A page Sphinx reads as reStructuredText by its suffix (Django's are `.txt`). */
function isSphinxPage(path: string, extension: string, context: ParseContext): boolean {
  return context.sphinx?.suffixes.includes(extension) === true && inSphinxSite(path, context)
}
