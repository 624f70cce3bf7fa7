/**
 * The library page's extraction report: what the last ingest made of the docs, worst findings
 * first (content the index lacks, then links and titles that read wrong, then style), each
 * kind a disclosure with its items; the first kind that has any is open.
 */
import type { ComponentChildren } from 'preact'
import { api, libraryPath } from '../api'
import { ErrorNote, formatDate, formatNumber } from '../components'
import { useLoad } from '../hooks'
import type { ExtractionReport, ExtractionView } from '../types'

type Findings<T> = { count: number; items: T[] }

interface Kind {
  title: string
  list: Findings<unknown>
  /** The items as table rows: header cells, then one array of cells per item. */
  headers: string[]
  rows: ComponentChildren[][]
}

function kinds(report: ExtractionReport): Kind[] {
  const { unresolved } = report.includes
  return [
    {
      title: 'Includes that read no file',
      list: unresolved,
      headers: ['Where', 'Include', 'Why'],
      rows: unresolved.items.map((i) => [
        <code>{i.line > 0 ? `${i.page}:${i.line}` : i.page}</code>,
        <code>{i.reference}</code>,
        <>
          {i.problem}
          {i.tried?.length ? <div class="muted">tried {i.tried.join(', ')}</div> : null}
        </>,
      ]),
    },
    { title: 'Pages that could not be parsed', list: report.pagesSkipped, headers: ['Page', 'Why'], rows: report.pagesSkipped.items.map((p) => [<code>{p.page}</code>, p.reason]) },
    { title: 'Pages with text but no snippet', list: report.pagesWithoutSnippets, headers: ['Page'], rows: report.pagesWithoutSnippets.items.map((p) => [<code>{p.page}</code>]) },
    {
      title: 'Links to anchors their pages do not define',
      list: report.undefinedAnchors,
      headers: ['Link', 'Heading'],
      rows: report.undefinedAnchors.items.map((a) => [<code>{`${a.page}#${a.anchor}`}</code>, a.title]),
    },
    { title: 'Titles with markup left in them', list: report.titlesWithMarkup, headers: ['Page', 'Title'], rows: report.titlesWithMarkup.items.map((t) => [<code>{t.page}</code>, t.title]) },
    {
      title: 'Template tags only the site build renders',
      list: report.notRendered,
      headers: ['Where', 'Tag'],
      rows: report.notRendered.items.map((t) => [<code>{`${t.page}:${t.line}`}</code>, <code>{t.directive}</code>]),
    },
    {
      title: 'Pages with code blocks that name no language',
      list: report.codeWithoutLanguage,
      headers: ['Page', 'Blocks'],
      rows: report.codeWithoutLanguage.items.map((p) => [<code>{p.page}</code>, formatNumber(p.count)]),
    },
  ]
}

const count = (n: number, noun: string): string => `${formatNumber(n)} ${noun}${n === 1 ? '' : 's'}`

/** Why a version has no report, by its state. */
function noReport(view: ExtractionView): string {
  if (view.state === 'error') return `No report: no ingest of this version has read its pages (the last one failed: ${view.errorCode ?? 'unknown'}). The Parse Queue names the failure.`
  if (view.state !== 'finalized') return 'No report yet: it is written when the ingest has read the pages.'
  return 'No report yet: it is written by the next refresh of this library (imported libraries have none).'
}

export function Extraction({ libraryId, updatedAt }: { libraryId: string; updatedAt: string | null }) {
  const view = useLoad(() => api<ExtractionView>('GET', `${libraryPath(libraryId)}/extraction`), [libraryId, updatedAt])
  const report = view.data?.report
  const found = report ? kinds(report).filter((kind) => kind.list.count > 0) : []
  return (
    <section aria-labelledby="extraction">
      <h2 id="extraction">Extraction report</h2>
      <ErrorNote error={view.error} />
      {view.data && !report ? <p class="muted">{noReport(view.data)}</p> : null}
      {report && view.data?.state === 'error' ? (
        <p class="error-note" role="alert">
          The last ingest failed (<code>{view.data.errorCode}</code>): this version serves no snippets. The report below is of the ingest that read its pages.
        </p>
      ) : null}
      {report ? (
        <>
          <p>
            {count(report.pages, 'page')} read · {count(report.snippets, 'snippet')} · {count(report.includes.found, 'include')}, {formatNumber(report.includes.resolved)} read ·{' '}
            {count(report.duplicatesDropped, 'duplicate')} dropped · job {view.data?.jobId ?? '-'}, {formatDate(view.data?.createdAt)}
          </p>
          {found.length === 0 && report.snippets === 0 ? <p>No page holds a paragraph of prose (20 words or more) or a code block: stubs, tables of contents and lists of links give no snippet.</p> : null}
          {found.length === 0 && report.snippets > 0 ? <p>Nothing went wrong: every include was read, every title and link reads clean.</p> : null}
          {found.map((kind, index) => (
            <details key={kind.title} open={index === 0}>
              <summary>
                {kind.title} ({formatNumber(kind.list.count)}
                {kind.list.items.length < kind.list.count ? `; the first ${kind.list.items.length} shown` : ''})
              </summary>
              <table>
                <thead>
                  <tr>
                    {kind.headers.map((header) => (
                      <th scope="col" key={header}>
                        {header}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {kind.rows.map((cells, row) => (
                    <tr key={row}>
                      {cells.map((cell, column) => (
                        <td key={column}>{cell}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </details>
          ))}
        </>
      ) : null}
    </section>
  )
}
