/**
 * GitOps (on-premise): where the manifest is, whether syncs run by themselves, and a sync now
 * (or its plan, as a dry run) with what it did, entry by entry.
 */
import { useState } from 'preact/hooks'
import { api, query } from '../api'
import { ErrorNote, formatDate } from '../components'
import { useAction, useLoad } from '../hooks'

interface GitOpsConfig {
  repoUrl: string
  path: string
  branch: string
  prune: boolean
  enabled: boolean
  schedule: string
}

interface SyncResult {
  at: string
  trigger: string
  dryRun: boolean
  commit: string
  upToDate: boolean
  created: number
  updated: number
  unchanged: number
  skipped: number
  pruned: number
  failed: number
  entries: Array<{ libraryId: string; type: string | null; action: string; reason?: string; jobId?: number }>
}

interface GitOpsStatus {
  config: GitOpsConfig
  managed: Array<{ libraryId: string; syncedAt: string }>
  lastSync: SyncResult | null
  lastError: { at: string; message: string } | null
}

const summary = (r: SyncResult) =>
  r.upToDate
    ? 'nothing to do: the manifest is unchanged since the last complete sync'
    : `${r.created} created, ${r.updated} re-indexed, ${r.unchanged} unchanged, ${r.skipped} skipped, ${r.pruned} pruned, ${r.failed} failed`

export function GitOpsSection() {
  const status = useLoad(() => api<GitOpsStatus>('GET', '/api/gitops/status'), [])
  return (
    <section aria-labelledby="gitops">
      <h2 id="gitops">GitOps</h2>
      <p class="muted">
        Keep the list of indexed sources in a manifest (<code>repos.yaml</code>) in a git repository: a sync adds, re-indexes what changed and, with pruning, removes
        what the manifest no longer lists. Libraries added by hand are never touched.
      </p>
      <ErrorNote error={status.error} />
      {status.data ? <GitOpsForm key={JSON.stringify(status.data.config)} status={status.data} onChange={status.reload} /> : null}
    </section>
  )
}

function GitOpsForm({ status, onChange }: { status: GitOpsStatus; onChange: () => void }) {
  const [config, setConfig] = useState(status.config)
  const [result, setResult] = useState<SyncResult | null>(null)
  const text = (name: 'repoUrl' | 'path' | 'branch' | 'schedule') => (event: { currentTarget: HTMLInputElement }) => setConfig({ ...config, [name]: event.currentTarget.value })
  const save = useAction(async () => {
    await api('PUT', '/api/gitops/config', { ...config })
    onChange()
  })
  const sync = useAction(async (dryRun: boolean) => {
    setResult(await api<SyncResult>('POST', `/api/gitops/reconcile${query({ dryRun: dryRun ? 'true' : undefined })}`))
    if (!dryRun) onChange()
  })
  const shown = result ?? status.lastSync
  return (
    <>
      <form
        aria-label="GitOps"
        onSubmit={(event) => {
          event.preventDefault()
          void save.run()
        }}
      >
        <label>
          Manifest repository URL
          <input value={config.repoUrl} onInput={text('repoUrl')} placeholder="https://github.com/acme/lectern-sources" />
        </label>
        <div class="grid">
          <label>
            Manifest path
            <input value={config.path} onInput={text('path')} required />
          </label>
          <label>
            Branch
            <input value={config.branch} onInput={text('branch')} placeholder="the default branch" />
          </label>
          <label>
            Sync schedule (UTC)
            <input value={config.schedule} onInput={text('schedule')} placeholder="daily, every-6-hours, weekly or cron" />
          </label>
        </div>
        <label>
          <input type="checkbox" role="switch" checked={config.enabled} onChange={(event) => setConfig({ ...config, enabled: event.currentTarget.checked })} /> Enable
          automatic syncs (at start and on the schedule)
        </label>
        <label>
          <input type="checkbox" checked={config.prune} onChange={(event) => setConfig({ ...config, prune: event.currentTarget.checked })} /> Prune removed
          repositories (deletes their indexed data)
        </label>
        <ErrorNote error={save.error} />
        <button type="submit" aria-busy={save.busy} disabled={save.busy}>
          Save GitOps
        </button>
      </form>
      <p>
        <button class="secondary" aria-busy={sync.busy} disabled={sync.busy || status.config.repoUrl === ''} onClick={() => void sync.run(false)}>
          Sync now
        </button>{' '}
        <button class="secondary outline" disabled={sync.busy || status.config.repoUrl === ''} onClick={() => void sync.run(true)}>
          Dry run
        </button>
      </p>
      <ErrorNote error={sync.error} />
      {status.lastError && (!status.lastSync || status.lastError.at > status.lastSync.at) ? (
        <p class="error-note" role="status">
          The last sync ({formatDate(status.lastError.at)}) changed nothing: {status.lastError.message}
        </p>
      ) : null}
      {shown ? (
        <div aria-label="Sync result" role="region">
          <p>
            {shown.dryRun ? 'Dry run' : `Last sync (${shown.trigger})`} {formatDate(shown.at)}, commit <code>{shown.commit.slice(0, 12)}</code>: {summary(shown)}.
          </p>
          {shown.entries.length > 0 ? (
            <table>
              <thead>
                <tr>
                  <th scope="col">{shown.dryRun ? 'Plan' : 'Action'}</th>
                  <th scope="col">Library</th>
                  <th scope="col">Type</th>
                  <th scope="col">Note</th>
                </tr>
              </thead>
              <tbody>
                {shown.entries.map((entry) => (
                  <tr key={`${entry.action}${entry.libraryId}`}>
                    <td>{entry.action}</td>
                    <td>{entry.libraryId}</td>
                    <td>{entry.type ?? '-'}</td>
                    <td class="break">{entry.reason ?? (entry.jobId === undefined ? '' : `job ${entry.jobId}`)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </div>
      ) : null}
      <p class="muted">Libraries GitOps manages: {status.managed.length === 0 ? 'none yet' : status.managed.map((m) => m.libraryId).join(', ')}.</p>
    </>
  )
}
