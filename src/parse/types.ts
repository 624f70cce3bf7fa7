/**
 * What the parsers produce from one document: snippets not yet tokenized, embedded or stored.
 * Every parser (markdown/mdx, rst, ipynb, later html and openapi) returns this shape.
 */

/** One alternative of a code snippet: a tab of a tab group, or the single fenced block. */
export interface CodeAlternative {
  language: string
  code: string
}

export interface ParsedCodeSnippet {
  kind: 'code'
  /** The block's own title (a `title="..."` meta, a tab label) or the heading trail's last heading. */
  title: string
  /** The prose that introduces the block (the paragraph(s) right before it in the same section). */
  description: string
  /** Heading trail, e.g. "Guides > Routing > Hooks". */
  breadcrumb: string
  /** Title of the document (its first H1 or front-matter title, else the file name). */
  pageTitle: string
  /** Anchor of the nearest heading (github-slugger), '' at the top of the document. */
  anchor: string
  codeList: CodeAlternative[]
  /** Repository paths of the files the code was included from (`docs_src/tutorial001.py`). */
  includes?: string[]
}

export interface ParsedInfoSnippet {
  kind: 'info'
  breadcrumb: string
  pageTitle: string
  anchor: string
  /** Prose of one section (or one token-bounded part of a long section), as Markdown text. */
  content: string
}

export type ParsedSnippet = ParsedCodeSnippet | ParsedInfoSnippet

/** A document handed to a parser. `path` is repo-relative with forward slashes. */
export interface SourceDocument {
  path: string
  text: string
}

/** Other files of the document's repository, for include directives. */
export interface IncludeReader {
  /**
   * The text of a file by repository-relative path; undefined when it is missing, not a regular
   * file inside the repository (a symlink leaving it counts as outside), or over the size cap.
   */
  readFile(path: string): string | undefined
  /** Records why an include was skipped. */
  log(message: string): void
}

/** What parsing a document may consult besides its own text. */
export interface ParseContext {
  includes?: IncludeReader
  /**
   * Folders `@/` (VitePress) and `/` (Sphinx) include paths are relative to, best first: the
   * docs site's source roots found in the repository.
   */
  siteRoots?: string[]
  /** The language of Sphinx `::` literal blocks when no `.. highlight::` says (conf.py's highlight_language, else python). */
  literalLanguage?: string
  /** Module path aliases of the site's bundler (tsconfig `paths`, Docusaurus `@site/`): `@mdx/*` -> `src/mdx/*`. */
  aliases?: Array<{ pattern: string; targets: string[] }>
  /** A Sphinx project: its pages under `root` with these suffixes are reStructuredText, whatever the extension (Django's are `.txt`). */
  sphinx?: { root: string; suffixes: string[] }
}
