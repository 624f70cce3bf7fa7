/**
 * Lectern's own extraction report: what one ingest of a library version made of its documents,
 * so that an operator sees where extraction went wrong (an include that found no file, a title
 * that kept its markup, a link to an anchor the page lacks) instead of finding out from answers.
 * Documents are inspected on the parse thread (document-report.ts); a job tallies them here and
 * stores the report with the version. Reading it costs queries nothing.
 */
import { z } from 'zod'
import type { DocumentReport, IncludeOutcome } from '../parse/types.js'
import { counted } from '../text/counted.js'

/** Items kept of each kind of finding: the counts are exact, the lists show this many. */
export const MAX_ITEMS = 100
/** A template tag as the report quotes it. */
const MAX_DIRECTIVE_CHARS = 200

const Include = z.object({
  page: z.string(),
  line: z.number().int().nonnegative(),
  reference: z.string(),
  resolved: z.string().optional(),
  problem: z.string(),
  tried: z.array(z.string()).optional(),
})
const Title = z.object({ page: z.string(), title: z.string(), anchor: z.string() })
const Anchor = z.object({ page: z.string(), anchor: z.string(), title: z.string() })
const PageCount = z.object({ page: z.string(), count: z.number().int().positive() })
const Page = z.object({ page: z.string(), reason: z.string() })

const findings = <T extends z.ZodTypeAny>(item: T) => z.object({ count: z.number().int().nonnegative(), items: z.array(item) })

export const ExtractionReportSchema = z.object({
  /** Documents read, and the snippets the version holds. */
  pages: z.number().int().nonnegative(),
  snippets: z.number().int().nonnegative(),
  /** Documents that could not be parsed (over the parse budget, a parser error): skipped. */
  pagesSkipped: findings(Page),
  /** Documents with readable text that gave no snippet. */
  pagesWithoutSnippets: findings(z.object({ page: z.string() })),
  /** Include directives: all of them, those that read their file, and those that read none. */
  includes: z.object({ found: z.number().int().nonnegative(), resolved: z.number().int().nonnegative(), unresolved: findings(Include) }),
  /** Titles and headings that kept markup: braces, tags, emphasis or directive markers, entities. */
  titlesWithMarkup: findings(Title),
  /** Source links to an anchor their page does not define. */
  undefinedAnchors: findings(Anchor),
  /** Code blocks with no language, per page. */
  codeWithoutLanguage: findings(PageCount),
  /** Template tags whose output only the site's build makes (a Liquid loop over `_data`, a block shortcode). */
  notRendered: findings(z.object({ page: z.string(), line: z.number().int().nonnegative(), directive: z.string() })),
  /** Snippets not kept because the same content was kept elsewhere. */
  duplicatesDropped: z.number().int().nonnegative(),
})

export type ExtractionReport = z.infer<typeof ExtractionReportSchema>
export type UnresolvedInclude = z.infer<typeof Include>

/** A kind of finding: how many there are, and the first MAX_ITEMS of them. */
export type Findings<T> = { count: number; items: T[] }

const none = <T>(): Findings<T> => ({ count: 0, items: [] })

function add<T>(list: Findings<T>, items: readonly T[]): void {
  list.count += items.length
  for (const item of items) if (list.items.length < MAX_ITEMS) list.items.push(item)
}

/** What a job's documents added up to, one document at a time. */
export class ExtractionTally {
  private pages = 0
  private readonly skipped = none<{ page: string; reason: string }>()
  private readonly withoutSnippets = none<{ page: string }>()
  private found = 0
  private resolved = 0
  private readonly unresolved = none<UnresolvedInclude>()
  private readonly titles = none<{ page: string; title: string; anchor: string }>()
  private readonly anchors = none<{ page: string; anchor: string; title: string }>()
  private readonly unlabelled = none<{ page: string; count: number }>()
  private readonly unrendered = none<{ page: string; line: number; directive: string }>()

  /** A parsed document and what inspecting it found. */
  document(page: string, report: DocumentReport): void {
    this.pages++
    if (report.textWithoutSnippet) add(this.withoutSnippets, [{ page }])
    this.includes(report.includes)
    add(this.titles, report.titlesWithMarkup.map((item) => ({ page, ...item })))
    add(this.anchors, report.undefinedAnchors.map((item) => ({ page, ...item })))
    if (report.codeWithoutLanguage > 0) add(this.unlabelled, [{ page, count: report.codeWithoutLanguage }])
    add(this.unrendered, report.notRendered.map((item) => ({ page, line: item.line, directive: item.directive.slice(0, MAX_DIRECTIVE_CHARS) })))
  }

  /** A document that could not be parsed. */
  skippedDocument(page: string, reason: string): void {
    this.pages++
    add(this.skipped, [{ page, reason }])
  }

  private includes(outcomes: readonly IncludeOutcome[]): void {
    this.found += outcomes.length
    const failed = outcomes.filter((outcome) => outcome.problem !== undefined)
    this.resolved += outcomes.length - failed.length
    add(this.unresolved, failed.map((outcome) => ({ ...outcome, problem: outcome.problem! })))
  }

  /** The content that went wrong, counted: what makes a job end with warnings. */
  get skippedContent(): number {
    return this.skipped.count + this.unresolved.count + this.withoutSnippets.count
  }

  report(snippets: number, duplicatesDropped: number): ExtractionReport {
    return {
      pages: this.pages,
      snippets,
      pagesSkipped: this.skipped,
      pagesWithoutSnippets: this.withoutSnippets,
      includes: { found: this.found, resolved: this.resolved, unresolved: this.unresolved },
      titlesWithMarkup: this.titles,
      undefinedAnchors: this.anchors,
      codeWithoutLanguage: { count: this.unlabelled.count, items: [...this.unlabelled.items].sort((a, b) => b.count - a.count) },
      notRendered: this.unrendered,
      duplicatesDropped,
    }
  }
}

type Say = (count: number, one: string, many: string) => void

/** The kinds of skipped content, which make a job end with warnings, worst first. */
function skipped(report: ExtractionReport, say: Say): void {
  say(report.includes.unresolved.count, 'include that read no file', 'includes that read no file')
  say(report.pagesSkipped.count, 'page that could not be parsed', 'pages that could not be parsed')
  say(report.pagesWithoutSnippets.count, 'page with text but no snippet', 'pages with text but no snippet')
}

function lines(fill: (say: Say) => void): string[] {
  const out: string[] = []
  fill((count, one, many) => {
    if (count > 0) out.push(counted(count, one, many))
  })
  return out
}

/** What a job that ended with warnings skipped, a line per kind: for its result line. */
export const warningSummary = (report: ExtractionReport): string[] => lines((say) => skipped(report, say))

/** One line per kind of finding that has any, worst first: `lectern add --wait` prints them. */
export function reportSummary(report: ExtractionReport): string[] {
  return lines((say) => {
    skipped(report, say)
    say(report.undefinedAnchors.count, 'link to an anchor its page does not define', 'links to anchors their pages do not define')
    say(report.titlesWithMarkup.count, 'title with markup left in it', 'titles with markup left in them')
    say(report.notRendered.count, 'template tag only the site build renders', 'template tags only the site build renders')
  })
}
