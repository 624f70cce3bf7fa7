/**
 * Backups: the archives at the destination, "back up now" with its live status, downloads, and a
 * restore that the operator confirms by typing the archive's name. The backup settings are the
 * form in backups-config.tsx.
 */
import prettyBytes from 'pretty-bytes'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api'
import { ActionsHeader, Empty, ErrorNote, formatDate, formatDuration } from '../components'
import { useAction, useLoad } from '../hooks'
import type { BackupArchive, BackupStatus, LastRestore } from '../types'
import { BackupConfigForm } from './backups-config'
import { RestorePanel } from './backups-restore'

const POLL_RUNNING_MS = 1000

export function BackupsPage() {
  const list = useLoad(() => api<{ destination: string; backups: BackupArchive[] }>('GET', '/api/backups'), [])
  // Polled while a backup runs (started here, on a schedule, or by `lectern backup`) and until
  // the status reports the result of the run started here.
  const [polling, setPolling] = useState(false)
  const [awaiting, setAwaiting] = useState<string>()
  const status = useLoad(() => api<BackupStatus>('GET', '/api/backup/status'), [], polling ? POLL_RUNNING_MS : undefined)
  const [restoring, setRestoring] = useState<string>()
  const running = status.data?.running ?? false
  useEffect(() => {
    const current = status.data
    if (!current) return
    if (current.running) return setPolling(true)
    if (awaiting !== undefined && current.last?.startedAt !== awaiting) return
    if (polling) {
      // The run ended: it may have added an archive and pruned old ones.
      setPolling(false)
      setAwaiting(undefined)
      list.reload()
    }
  }, [status.data])
  const backUp = useAction(async () => {
    try {
      const { startedAt } = await api<{ startedAt: string }>('POST', '/api/backup')
      setAwaiting(startedAt)
    } finally {
      // Refused as backup_running too: then the status follows the run that holds the lock.
      setPolling(true)
      status.reload()
    }
  })
  const local = list.data?.destination.startsWith('dir:') ?? false
  return (
    <section>
      <h1>Backups</h1>
      <p>
        An archive holds the database, the vector index and the key that seals stored credentials: anyone who has it can read those credentials. Keep
        archives where only operators can reach them.
      </p>
      <div class="actions">
        <button onClick={() => void backUp.run()} disabled={backUp.busy || running} aria-busy={backUp.busy || running}>
          {running ? 'Backing up…' : 'Back up now'}
        </button>
      </div>
      <ErrorNote error={backUp.error ?? status.error} />
      {status.data ? <BackupState status={status.data} /> : null}
      {status.data?.lastRestore ? <RestoreState restore={status.data.lastRestore} /> : null}

      <h2>Archives</h2>
      <ErrorNote error={list.error} />
      {list.data ? (
        <p class="muted">
          Destination: <code>{list.data.destination}</code>
          {local ? null : ' · the dashboard downloads and restores only from a local directory: download an archive from the bucket and run `lectern restore <file>`.'}
        </p>
      ) : null}
      {list.data && list.data.backups.length === 0 ? <Empty>No archives yet. Back up now, or set a schedule below.</Empty> : null}
      {list.data && list.data.backups.length > 0 ? (
        <table class="striped">
          <thead>
            <tr>
              <th scope="col">Archive</th>
              <th scope="col" class="number">
                Size
              </th>
              <th scope="col">Created</th>
              <th scope="col">Destination</th>
              <ActionsHeader />
            </tr>
          </thead>
          <tbody>
            {list.data.backups.map((archive) => (
              <tr key={archive.name}>
                <td class="break">
                  <code>{archive.name}</code>
                </td>
                <td class="number">{prettyBytes(archive.size)}</td>
                <td>{formatDate(archive.createdAt)}</td>
                <td class="break">{archive.destination}</td>
                <td>
                  {local ? (
                    <div class="actions">
                      <a href={`/api/backups/${encodeURIComponent(archive.name)}/download`} download aria-label={`Download ${archive.name}`}>
                        Download
                      </a>
                      <button class="secondary outline small" onClick={() => setRestoring(archive.name)} aria-label={`Restore ${archive.name}`}>
                        Restore…
                      </button>
                    </div>
                  ) : (
                    <span class="muted">in the bucket</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {restoring ? <RestorePanel key={restoring} name={restoring} lastRestore={status.data?.lastRestore ?? null} onCancel={() => setRestoring(undefined)} /> : null}

      <h2>Settings</h2>
      <BackupConfigForm onSaved={list.reload} />
    </section>
  )
}

function BackupState({ status }: { status: BackupStatus }) {
  if (status.running) {
    return (
      <p role="status">
        <progress aria-label="Backup in progress" /> A backup ({status.trigger}) is running since {formatDate(status.startedAt)}.
      </p>
    )
  }
  const last = status.last
  if (!last) return <p role="status">No backup has run yet.</p>
  if (!last.ok) {
    return (
      <p role="status" class="error-note">
        The last backup ({last.trigger}, {formatDate(last.startedAt)}) failed{last.interrupted ? ': its process stopped before it ended' : ''}: {last.error}{' '}
        {last.code ? <code>{last.code}</code> : null}
      </p>
    )
  }
  return (
    <>
      <p role="status">
        Last backup: <code>{last.name}</code> ({prettyBytes(last.size ?? 0)}, {last.trigger}) finished {formatDate(last.finishedAt)} in {formatDuration(last.durationMs)}
        {last.partialLibraries?.length ? `; libraries being indexed at the time may be partial: ${last.partialLibraries.join(', ')}` : ''}.
      </p>
      {last.warning ? <p class="error-note">{last.warning}</p> : null}
    </>
  )
}

function RestoreState({ restore }: { restore: LastRestore }) {
  if (restore.state === 'failed') {
    return (
      <p class="error-note" aria-label="Last restore">
        The restore of <code>{restore.archive}</code> failed at {formatDate(restore.at)}, and the data was left as it was: {restore.reason}{' '}
        {restore.code ? <code>{restore.code}</code> : null}
      </p>
    )
  }
  return (
    <p aria-label="Last restore">
      Restored <code>{restore.archive}</code> at {formatDate(restore.at)}.
      {restore.movedTo ? (
        <>
          {' '}
          The data it replaced is in <code>{restore.movedTo}</code>.
        </>
      ) : null}
    </p>
  )
}
