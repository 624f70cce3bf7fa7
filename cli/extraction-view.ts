/** A library version's extraction report as people read it (`lectern inspect`); --json gives the raw view. */
import type { ExtractionReport, Findings } from '../src/extraction/report.js'
import type { ExtractionView } from '../src/extraction/view.js'
import { colour, humanDate, record, table } from './output.js'
import { counted } from '../src/text/counted.js'

/** Why pages that were all read and parsed gave no snippet. */
const NO_SNIPPET_PAGES = 'No page holds a paragraph of prose (20 words or more) or a code block: stubs, tables of contents and lists of links give no snippet.'

/** A finding's heading with its count, saying when the list is cut short. */
function heading(title: string, list: Findings<unknown>): string {
  const shown = list.items.length < list.count ? `; the first ${list.items.length} shown` : ''
  return colour.bold(`${title} (${list.count}${shown})`)
}

/** The findings, worst first: content the index lacks, then links and titles that read wrong, then style. */
function sections(report: ExtractionReport): string[] {
  const parts: string[] = []
  const { unresolved } = report.includes
  if (unresolved.count > 0) {
    parts.push(
      `${heading('Includes that read no file', unresolved)}\n${table(unresolved.items, [
        { header: 'WHERE', value: (i) => (i.line > 0 ? `${i.page}:${i.line}` : i.page) },
        { header: 'INCLUDE', value: (i) => i.reference },
        { header: 'WHY', value: (i) => colour.yellow(i.problem) + (i.tried?.length ? ` (tried ${i.tried.join(', ')})` : '') },
      ])}`,
    )
  }
  if (report.pagesSkipped.count > 0) {
    parts.push(`${heading('Pages that could not be parsed', report.pagesSkipped)}\n${table(report.pagesSkipped.items, [
      { header: 'PAGE', value: (p) => p.page },
      { header: 'WHY', value: (p) => colour.yellow(p.reason) },
    ])}`)
  }
  if (report.pagesWithoutSnippets.count > 0) {
    parts.push(`${heading('Pages with text but no snippet', report.pagesWithoutSnippets)}\n${report.pagesWithoutSnippets.items.map((p) => `  ${p.page}`).join('\n')}`)
  }
  if (report.undefinedAnchors.count > 0) {
    parts.push(`${heading('Links to anchors their pages do not define', report.undefinedAnchors)}\n${table(report.undefinedAnchors.items, [
      { header: 'LINK', value: (a) => `${a.page}#${a.anchor}` },
      { header: 'HEADING', value: (a) => a.title },
    ])}`)
  }
  if (report.titlesWithMarkup.count > 0) {
    parts.push(`${heading('Titles with markup left in them', report.titlesWithMarkup)}\n${table(report.titlesWithMarkup.items, [
      { header: 'PAGE', value: (t) => t.page },
      { header: 'TITLE', value: (t) => t.title },
    ])}`)
  }
  if (report.notRendered.count > 0) {
    parts.push(`${heading('Template tags only the site build renders', report.notRendered)}\n${table(report.notRendered.items, [
      { header: 'WHERE', value: (t) => `${t.page}:${t.line}` },
      { header: 'TAG', value: (t) => t.directive },
    ])}`)
  }
  if (report.codeWithoutLanguage.count > 0) {
    parts.push(`${heading('Pages with code blocks that name no language', report.codeWithoutLanguage)}\n${table(report.codeWithoutLanguage.items, [
      { header: 'PAGE', value: (p) => p.page },
      { header: 'BLOCKS', value: (p) => String(p.count), right: true },
    ])}`)
  }
  return parts
}

export function renderExtraction(view: ExtractionView): string {
  const { report } = view
  if (report === null) return noReport(view)
  const { includes } = report
  const summary = record([
    ['Library', view.libraryId],
    ['Ingest', `job ${view.jobId ?? '-'}, ${humanDate(view.createdAt)}${view.state === 'error' ? colour.red(`: failed (${view.errorCode ?? 'unknown'}), the version serves no snippets`) : ''}`],
    ['Pages', `${report.pages} read, ${report.pagesSkipped.count} could not be parsed, ${report.pagesWithoutSnippets.count} with text but no snippet`],
    ['Snippets', `${report.snippets} kept, ${counted(report.duplicatesDropped, 'duplicate')} dropped`],
    ['Includes', `${includes.found} found, ${includes.resolved} read, ${includes.unresolved.count} read no file`],
  ])
  const found = sections(report)
  if (found.length > 0) return [summary, ...found].join('\n\n')
  return [summary, report.snippets === 0 ? colour.yellow(NO_SNIPPET_PAGES) : colour.green('Nothing went wrong: every include was read, every title and link reads clean.')].join('\n\n')
}

/** Why a version has no report, and what writes one. */
function noReport(view: ExtractionView): string {
  const id = view.libraryId
  if (view.state === 'initial' || view.state === 'processing') return `${id} has no extraction report yet: its ingest has not finished. It is written when the ingest succeeds (\`lectern jobs\` shows it).`
  if (view.state === 'error') return `${id} has no extraction report: no ingest of it has read its pages (the last one failed: ${view.errorCode ?? 'unknown'}). One is written when an ingest reads them; \`lectern jobs\` names the failure.`
  return `${id} has no extraction report: no ingest has finished since this version was imported or last indexed by an older Lectern. \`lectern refresh ${id} --force\` writes one.`
}
