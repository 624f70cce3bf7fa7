/**
 * Restoring an archive from the local destination: a dry run shows what the archive holds, the
 * operator types its name to confirm, the server stages it and restarts to apply it, and this
 * panel waits for the restarted server to report the restore's outcome, then reloads the app.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError } from '../api'
import { ErrorNote, formatDate, formatNumber } from '../components'
import { useAction, useLoad } from '../hooks'
import type { ArchiveSummary, BackupStatus, LastRestore } from '../types'

const POLL_RESTART_MS = 1000
/** After this long without the server's answer the page says so (and keeps waiting). */
const SLOW_RESTART_MS = 60_000

interface Props {
  name: string
  /** The outcome known before this restore: the one after it differs. */
  lastRestore: LastRestore | null
  onCancel: () => void
}

export function RestorePanel({ name, lastRestore, onCancel }: Props) {
  const path = `/api/backups/${encodeURIComponent(name)}/restore`
  const dryRun = useLoad(() => api<ArchiveSummary>('POST', `${path}?dryRun=true`), [name])
  const [typed, setTyped] = useState('')
  const [staged, setStaged] = useState(false)
  const restore = useAction(async () => {
    await api('POST', path)
    setStaged(true)
  })
  return (
    <article aria-label={`Restore ${name}`}>
      <header>
        <strong>
          Restore <code>{name}</code>
        </strong>
      </header>
      {dryRun.loading && !dryRun.data ? <p aria-busy="true">Checking the archive…</p> : null}
      <ErrorNote error={dryRun.error} />
      {dryRun.data ? <Summary summary={dryRun.data} /> : null}
      {dryRun.data && !staged ? (
        <>
          <p>
            The restore replaces all current data: libraries, keys, users and settings. The current data is kept in a <code>pre-restore-…</code> directory in the
            data directory. Sessions are those of the archive: you may have to sign in again.
          </p>
          <label>
            Type the archive name to confirm
            <input value={typed} onInput={(event) => setTyped(event.currentTarget.value)} autocomplete="off" spellcheck={false} placeholder={name} />
          </label>
          <div class="actions">
            <button class="contrast" disabled={typed.trim() !== name || restore.busy} aria-busy={restore.busy} onClick={() => void restore.run()}>
              Restore this archive
            </button>
            <button class="secondary outline" onClick={onCancel}>
              Cancel
            </button>
          </div>
          <ErrorNote error={restore.error} />
        </>
      ) : null}
      {!dryRun.data && !dryRun.loading ? (
        <button class="secondary outline" onClick={onCancel}>
          Close
        </button>
      ) : null}
      {staged ? <Restarting before={lastRestore} /> : null}
    </article>
  )
}

function Summary({ summary }: { summary: ArchiveSummary }) {
  return (
    <>
      <dl aria-label="Archive contents">
        <dt>Created</dt>
        <dd>{formatDate(summary.createdAt)}</dd>
        <dt>Made by</dt>
        <dd>
          Lectern {summary.appVersion}, schema {summary.schemaVersion}
        </dd>
        <dt>Libraries</dt>
        <dd>
          {summary.libraries.length === 0
            ? 'none'
            : summary.libraries.map((library) => (
                <div key={library.id}>
                  <code>{library.id}</code> {library.versions.map((v) => `${v.tag} (${formatNumber(v.snippets)} snippets)`).join(', ')}
                  {library.partial ? ' · being indexed at backup time, may be partial' : ''}
                </div>
              ))}
        </dd>
      </dl>
    </>
  )
}

/**
 * Waits for the restarted server. Its status names the restore's outcome once it is back; a 401
 * means it is back but the restored data has no session of ours, and reloading shows sign-in.
 */
function Restarting({ before }: { before: LastRestore | null }) {
  const [slow, setSlow] = useState(false)
  useEffect(() => {
    const started = Date.now()
    let stopped = false
    const check = async () => {
      try {
        const status = await api<BackupStatus>('GET', '/api/backup/status')
        const now = status.lastRestore
        if (now && now.at !== before?.at) return window.location.reload()
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return window.location.reload()
      }
      if (Date.now() - started > SLOW_RESTART_MS) setSlow(true)
      if (!stopped) setTimeout(() => void check(), POLL_RESTART_MS)
    }
    const first = setTimeout(() => void check(), POLL_RESTART_MS)
    return () => {
      stopped = true
      clearTimeout(first)
    }
  }, [])
  return (
    <>
      <p role="status" aria-busy="true">
        The restore is staged. The server restarts to apply it; this page reloads when the server is back.
      </p>
      {slow ? (
        <p class="error-note" role="alert">
          The server has not answered for a minute. Check its log: a server run under a service manager (`--no-supervise`) is started again by that manager.
        </p>
      ) : null}
    </>
  )
}
