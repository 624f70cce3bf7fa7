/** A library's snippets, page by page of its docs: what Lectern made of each page. */
import { useState } from 'preact/hooks'
import { api, libraryPath, query } from '../api'
import { ErrorNote, formatNumber } from '../components'
import { useLoad } from '../hooks'

/** A page as people name it: a repository file's path rather than its URL at a commit. */
const pageLabel = (page: string): string => /\/(?:blob|tree|src)\/[0-9a-f]{7,40}\/(.+)$/.exec(page)?.[1] ?? page

interface DocPage {
  page: string
  title: string
  snippets: number
}

interface BrowsedSnippet {
  kind: 'code' | 'info'
  title: string
  description: string
  breadcrumb: string
  source: string
  tokens: number
  codeList?: Array<{ language: string; code: string }>
  content?: string
}

export function Browse({ libraryId }: { libraryId: string }) {
  const [page, setPage] = useState<string>()
  const pages = useLoad(() => api<{ pages: DocPage[] }>('GET', `${libraryPath(libraryId)}/pages`), [libraryId])
  const snippets = useLoad(
    () => (page ? api<{ snippets: BrowsedSnippet[] }>('GET', `${libraryPath(libraryId)}/pages/snippets${query({ page })}`) : Promise.resolve({ snippets: [] })),
    [libraryId, page],
  )
  return (
    <section aria-labelledby="browse">
      <h2 id="browse">Snippets by page</h2>
      <ErrorNote error={pages.error ?? snippets.error} />
      {pages.data ? (
        <label>
          Page of the docs
          <select value={page ?? ''} onChange={(event) => setPage(event.currentTarget.value || undefined)}>
            <option value="">
              Choose one of {formatNumber(pages.data.pages.length)} page{pages.data.pages.length === 1 ? '' : 's'}…
            </option>
            {pages.data.pages.map((p) => (
              <option key={p.page} value={p.page}>
                {pageLabel(p.page)} ({p.snippets})
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {page && snippets.data
        ? snippets.data.snippets.map((s, i) => (
            <article key={i} aria-label={s.title}>
              <header>
                <strong>{s.title}</strong> <small class="muted">{s.kind} · {formatNumber(s.tokens)} tokens · {s.source}</small>
                {s.description ? <p class="muted">{s.description}</p> : null}
              </header>
              {s.codeList ? s.codeList.map((c, j) => <pre key={j}><code data-language={c.language}>{c.code}</code></pre>) : <p class="snippet-text">{s.content}</p>}
            </article>
          ))
        : null}
    </section>
  )
}
