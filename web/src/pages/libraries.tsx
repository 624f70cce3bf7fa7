import { useState } from 'preact/hooks'
import { api, query, type Session } from '../api'
import { Badge, Empty, ErrorNote, formatDate, formatNumber, StateBadge } from '../components'
import { useLoad } from '../hooks'
import type { LibraryRow } from '../types'
import { AddLibrary } from './add-library'

const PAGE_SIZE = 25

interface LibrariesPage {
  libraries: LibraryRow[]
  total: number
  page: number
  pageSize: number
}

/** Who sees a private library: in the cloud tenants have keys, so a key alone is not the test there. */
export function PrivateBadge({ library, mode }: { library: Pick<LibraryRow, 'private' | 'team'>; mode: Session['mode'] }) {
  if (!library.private) return null
  if (library.team !== null) return <Badge title={`A private library of the teamspace ${library.team}: its members and keys see it`}>Private to {library.team}</Badge>
  return <Badge title={mode === 'cloud' ? 'Only the operator sees it' : 'Only callers with a key see it'}>Private</Badge>
}

export function LibrariesPage({ mode }: { mode: Session['mode'] }) {
  const [q, setQ] = useState('')
  const [page, setPage] = useState(1)
  const list = useLoad(() => api<LibrariesPage>('GET', `/api/libraries${query({ q, page, pageSize: PAGE_SIZE })}`), [q, page], 3000)
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / list.data.pageSize)) : 1
  return (
    <section>
      <hgroup>
        <h1>Libraries</h1>
        <p>{list.data ? `${formatNumber(list.data.total)} in this install` : ' '}</p>
      </hgroup>
      <AddLibrary mode={mode} onAdded={list.reload} />
      <input
        type="search"
        aria-label="Search libraries by ID or title"
        placeholder="Search by ID or title"
        value={q}
        onInput={(event) => {
          setQ(event.currentTarget.value)
          setPage(1)
        }}
      />
      <ErrorNote error={list.error} />
      {list.data && list.data.libraries.length === 0 ? (
        <Empty>{q ? `No library matches “${q}”.` : 'No libraries yet: add one from a git repository, an OpenAPI spec, an llms.txt or a website.'}</Empty>
      ) : null}
      {list.data && list.data.libraries.length > 0 ? (
        <div class="overflow-auto">
          <table class="striped">
            <thead>
              <tr>
                <th scope="col">Library</th>
                <th scope="col">State</th>
                <th scope="col" class="number">
                  Snippets
                </th>
                <th scope="col" class="number">
                  Tokens
                </th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.libraries.map((library) => (
                <tr key={library.id}>
                  <td>
                    <a href={`/libraries${library.id}`}>{library.id}</a>
                    <div class="muted">{library.title}</div>
                    <div>
                      {library.imported ? <Badge title="Imported from a bundle; it cannot be refreshed here">Imported</Badge> : null}
                      <PrivateBadge library={library} mode={mode} />
                      {library.versions.length > 0 ? <Badge>{library.versions.length + 1} versions</Badge> : null}
                    </div>
                  </td>
                  <td>
                    <StateBadge state={library.state} />
                    {library.state === 'processing' && library.progress ? <div class="muted">{library.progress}</div> : null}
                    {library.errorMessage ? <div class="error-text">{library.errorMessage}</div> : null}
                  </td>
                  <td class="number">{formatNumber(library.snippets)}</td>
                  <td class="number">{formatNumber(library.tokens)}</td>
                  <td>{formatDate(library.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {pages > 1 ? (
        <nav aria-label="Pages" class="pager">
          <button class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button class="secondary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      ) : null}
    </section>
  )
}
