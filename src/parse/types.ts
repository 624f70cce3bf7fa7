/**
 * What the parsers produce from one document: snippets not yet tokenized, embedded or stored.
 * Every parser (markdown/mdx, rst, ipynb, later html and openapi) returns this shape.
 */
import type { HtmlPage } from './html.js'

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
  /** Titles of the pages above this one (a Confluence page's ancestors), ahead of each snippet's heading trail. */
  ancestors?: string[]
}

/** Other files of the document's repository, for include directives. */
export interface IncludeReader {
  /**
   * The text of a file by repository-relative path; undefined when there is no such file, and why
   * not when there is one that cannot be used: not a regular file inside the repository (a
   * symlink leaving it counts as outside), over the size cap, not text.
   */
  readFile(path: string): string | { skipped: string } | undefined
  /** Records what came of one include directive. */
  record(outcome: IncludeOutcome): void
}

/** What came of one include directive: the file it read, or why it read none. */
export interface IncludeOutcome {
  /** The file holding the directive: the page, or a fragment the page included. */
  page: string
  /** 1-based line of the directive in that file; 0 where the reader cannot tell. */
  line: number
  /** The path as written. */
  reference: string
  /** The repository file it read. */
  resolved?: string
  /** Why it shows nothing: not found, outside the repository, no such region, nested too deep. */
  problem?: string
  /** The repository paths tried, when none could be read. */
  tried?: string[]
}

/** Hears of a template tag whose output only the site's build makes (a Liquid loop, a block shortcode). */
export type NotRendered = (item: { line: number; directive: string }) => void

/** What parsing a document may consult besides its own text. */
export interface ParseContext extends SiteConventions {
  includes?: IncludeReader
  notRendered?: NotRendered
}

/**
 * What a repository's docs site tells its parsers (sources/site-layout.ts): plain data, so that
 * it can go with its documents to the thread that parses them (jobs/parse-thread.ts).
 */
export interface SiteLayout extends SiteConventions {
  /** The checkout whose files include directives read. */
  root: string
}

/** How the pages of a docs site are read, beyond their own text. */
export interface SiteConventions {
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
  /**
   * The template tags the site's generator lets Markdown pages use (markdown-templates.ts): Hugo
   * shortcodes or Jekyll's Liquid. Elsewhere `{{ }}` and `{% %}` are text (Vue's, Jinja's docs).
   */
  templates?: 'hugo' | 'jekyll'
  /** How the sites under these folders name heading anchors, where not as GitHub does (parse/anchors.ts). */
  anchorStyles?: Array<{ root: string; style: AnchorStyle }>
}

/** The slug rules of a generator's heading anchors (parse/anchors.ts). */
export type AnchorStyle = 'github' | 'docutils' | 'vitepress' | 'python-markdown'

/** What one document gave, checked against its own text (extraction/document-report.ts). */
export interface DocumentReport {
  includes: IncludeOutcome[]
  /** The page has readable text but gave no snippet. */
  textWithoutSnippet: boolean
  /** Titles and headings that kept markup, with the anchor of the first snippet under them. */
  titlesWithMarkup: Array<{ title: string; anchor: string }>
  /** Anchors the page's snippets link to that the page does not define, with their heading. */
  undefinedAnchors: Array<{ anchor: string; title: string }>
  /** Code blocks without a language. */
  codeWithoutLanguage: number
  /** Template tags whose output only the site's build makes, by line. */
  notRendered: Array<{ line: number; directive: string }>
}

/** A spec read into snippets (sources/openapi.ts). */
export interface ApiSnippets {
  title: string
  description: string
  snippets: ParsedSnippet[]
}

/**
 * The parsing a job runs on its parse thread, under the parse budget (jobs/parse-thread.ts):
 * each task by name, as [input, output]; both plain data, as they cross threads.
 */
export interface ParseTasks {
  /** A document's snippets, and what checking them against the document found (src/extraction/). */
  document: [{ doc: SourceDocument; site?: SiteLayout }, { snippets: ParsedSnippet[]; report: DocumentReport }]
  html: [{ html: string; url: string }, HtmlPage]
  /** A Confluence page's storage format (XHTML with macros) as Markdown. */
  confluence: [{ storage: string }, string]
  /** The API of one source file (`generateDocs`). */
  source: [{ path: string; text: string }, ParsedCodeSnippet[]]
  openapi: [{ text: string; origin: string }, ApiSnippets]
}

export type ParseTaskName = keyof ParseTasks

/**
 * Runs a parse task of the job: resolves with its output, rejects with a ParseFailure (failure.ts)
 * when the input cannot be parsed within the budget, or with the job's abort reason.
 */
export type Parse = <K extends ParseTaskName>(task: K, input: ParseTasks[K][0]) => Promise<ParseTasks[K][1]>
