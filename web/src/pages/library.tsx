import { useLocation, useRoute } from 'preact-iso'
import { useState } from 'preact/hooks'
import { api, libraryPath, type Session } from '../api'
import { ActionsHeader, Badge, ErrorNote, formatDate, formatNumber, StateBadge } from '../components'
import { useAction, useLoad } from '../hooks'
import type { LibraryRow } from '../types'
import { Browse } from './browse'
import { Extraction } from './extraction'
import { PrivateBadge } from './libraries'
import { TryIt } from './try-it'

export function LibraryPage({ mode }: { mode: Session['mode'] }) {
  const { params } = useRoute()
  const { route } = useLocation()
  const id = `/${params.owner}/${params.name}`
  const library = useLoad(() => api<LibraryRow>('GET', libraryPath(id)), [id], 3000)
  const refresh = useAction(async () => {
    await api('POST', '/api/v1/refresh', { libraryName: id })
    library.reload()
  })
  const remove = useAction(async () => {
    await api('DELETE', libraryPath(id))
    route('/libraries')
  })
  if (!library.data) {
    if (library.error?.code === 'library_redirected' && typeof library.error.details.redirectUrl === 'string') {
      const to = library.error.details.redirectUrl
      return (
        <p>
          {id} was renamed: it is now <a href={`/libraries${to}`}>{to}</a>.
        </p>
      )
    }
    return library.error ? <ErrorNote error={library.error} /> : <p aria-busy="true">Loading {id}…</p>
  }
  const l = library.data
  const working = l.state === 'queued' || l.state === 'processing'
  return (
    <>
      <nav aria-label="breadcrumb">
        <ul>
          <li>
            <a href="/libraries">Libraries</a>
          </li>
          <li>{l.id}</li>
        </ul>
      </nav>
      <hgroup>
        <h1>{l.title || l.id}</h1>
        <p>
          <code>{l.id}</code> · {l.sourceKind} · <span class="break">{l.sourceUrl}</span>
        </p>
      </hgroup>
      <p>
        <StateBadge state={l.state} /> {l.imported ? <Badge>Imported</Badge> : null} <PrivateBadge library={l} mode={mode} />{' '}
        {formatNumber(l.snippets)} snippets · {formatNumber(l.tokens)} tokens · updated {formatDate(l.updatedAt)}
      </p>
      {l.description ? <p>{l.description}</p> : null}
      {working && l.progress ? <p role="status">{l.progress}</p> : null}
      {l.errorMessage ? (
        <p class="error-note" role="alert">
          The last run failed: {l.errorMessage} <code>{l.errorCode}</code>
        </p>
      ) : null}
      <div class="actions">
        <button
          onClick={() => void refresh.run()}
          disabled={!l.refreshable || working || refresh.busy}
          aria-busy={refresh.busy}
          title={l.refreshBlockedReason ?? undefined}
          aria-describedby={l.refreshBlockedReason ? 'refresh-blocked' : undefined}
        >
          Refresh
        </button>
        <RemoveButton id={l.id} onConfirm={() => void remove.run()} busy={remove.busy} />
      </div>
      {l.refreshBlockedReason ? (
        <p id="refresh-blocked" class="muted">
          {l.refreshBlockedReason}
        </p>
      ) : null}
      <ErrorNote error={refresh.error ?? remove.error} />
      {l.snippets > 0 ? <TryIt libraryId={l.id} /> : null}
      {l.snippets > 0 ? <Browse libraryId={l.id} /> : null}
      <Extraction libraryId={l.id} updatedAt={l.updatedAt} />
      <Versions library={l} onChange={library.reload} />
      <Rename library={l} onRenamed={(to) => route(`/libraries${to}`)} />
    </>
  )
}

function RemoveButton({ id, onConfirm, busy }: { id: string; onConfirm: () => void; busy: boolean }) {
  const [asking, setAsking] = useState(false)
  if (!asking) {
    return (
      <button class="secondary" onClick={() => setAsking(true)}>
        Remove…
      </button>
    )
  }
  return (
    <span role="group" aria-label="Confirm removal">
      <span>Remove {id} and all its snippets? </span>
      <button class="contrast" onClick={onConfirm} aria-busy={busy} disabled={busy}>
        Remove {id}
      </button>{' '}
      <button class="secondary outline" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </span>
  )
}

function Versions({ library, onChange }: { library: LibraryRow; onChange: () => void }) {
  const add = useAction(async (tag: string) => {
    await api('POST', `${libraryPath(library.id)}/versions`, { tag })
    onChange()
  })
  const remove = useAction(async (tag: string) => {
    await api('DELETE', `${libraryPath(library.id)}/versions/${encodeURIComponent(tag)}`)
    onChange()
  })
  return (
    <section aria-labelledby="versions">
      <h2 id="versions">Versions</h2>
      {library.versions.length === 0 ? <p class="muted">Only the default branch is indexed.</p> : null}
      {library.versions.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Tag</th>
              <th scope="col">State</th>
              <th scope="col" class="number">
                Snippets
              </th>
              <th scope="col">Updated</th>
              <ActionsHeader />
            </tr>
          </thead>
          <tbody>
            {library.versions.map((v) => (
              <tr key={v.tag}>
                <td>{v.tag}</td>
                <td>
                  <StateBadge state={v.state} />
                </td>
                <td class="number">{formatNumber(v.snippets)}</td>
                <td>{formatDate(v.updatedAt)}</td>
                <td>
                  <button class="secondary outline small" onClick={() => void remove.run(v.tag)} aria-label={`Remove version ${v.tag}`}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {library.imported ? (
        <p>Imported libraries have no source here to add a version from: a version comes across the air gap as the library did, exported from the cloud and imported.</p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault()
            const form = event.currentTarget
            void add.run(String(new FormData(form).get('tag')).trim()).then(() => form.reset())
          }}
        >
          <fieldset role="group">
            <input name="tag" aria-label="Git tag to add as a version" placeholder="git tag, e.g. v2.1.0" required />
            <button type="submit" aria-busy={add.busy} disabled={add.busy}>
              Add version
            </button>
          </fieldset>
        </form>
      )}
      <ErrorNote error={add.error ?? remove.error} />
    </section>
  )
}

function Rename({ library, onRenamed }: { library: LibraryRow; onRenamed: (to: string) => void }) {
  const rename = useAction(async (to: string) => {
    const renamed = await api<LibraryRow>('PATCH', libraryPath(library.id), { id: to })
    onRenamed(renamed.id)
  })
  return (
    <section aria-labelledby="rename">
      <h2 id="rename">Rename</h2>
      <p class="muted">The old ID keeps answering: it redirects to the new one.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void rename.run(String(new FormData(event.currentTarget).get('to')).trim())
        }}
      >
        <fieldset role="group">
          <input name="to" aria-label="New library ID" placeholder="/owner/name" required pattern="/[^\/]+/[^\/]+" />
          <button type="submit" aria-busy={rename.busy} disabled={rename.busy}>
            Rename
          </button>
        </fieldset>
      </form>
      <ErrorNote error={rename.error} />
    </section>
  )
}
