/** The Parse Queue: what waits, what runs and what ended lately, polled every two seconds. */
import { useState } from 'preact/hooks'
import { api, query } from '../api'
import { ActionsHeader, Empty, ErrorNote, formatDate, formatDuration } from '../components'
import { useAction, useLoad } from '../hooks'
import type { JobRow, LogLine } from '../types'

const POLL_MS = 2000

export function QueuePage() {
  const active = useLoad(() => api<{ jobs: JobRow[] }>('GET', `/api/jobs${query({ state: 'queued,running', limit: 100 })}`), [], POLL_MS)
  const ended = useLoad(() => api<{ jobs: JobRow[] }>('GET', `/api/jobs${query({ state: 'succeeded,failed', limit: 25 })}`), [], POLL_MS)
  const cancel = useAction(async (job: JobRow) => {
    await api('POST', `/api/jobs/${job.id}/cancel`)
    active.reload()
    ended.reload()
  })
  const running = active.data?.jobs.filter((j) => j.state === 'running') ?? []
  const queued = active.data?.jobs.filter((j) => j.state === 'queued') ?? []
  return (
    <section>
      <h1>Parse Queue</h1>
      <ErrorNote error={active.error ?? ended.error ?? cancel.error} />
      <h2>Running</h2>
      {active.data && running.length === 0 ? <Empty>Nothing is being processed.</Empty> : null}
      {running.map((job) => (
        <article key={job.id} aria-label={`Job ${job.id}`}>
          <header>
            <strong>{job.libraryId ?? job.kind}</strong> {job.version ? <code>{job.version}</code> : null} · job {job.id} · {formatDuration(job.elapsedMs)}
          </header>
          <p role="status">
            {job.interrupted ? <mark>interrupted</mark> : <progress aria-label={`Progress of job ${job.id}`} />} {job.progress ?? 'started'}
          </p>
          <button class="secondary" onClick={() => void cancel.run(job)}>
            Cancel
          </button>
          <Log job={job} />
        </article>
      ))}
      <h2>Queued</h2>
      {active.data && queued.length === 0 ? <Empty>The queue is empty.</Empty> : null}
      {queued.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Position</th>
              <th scope="col">Library</th>
              <th scope="col">Kind</th>
              <th scope="col">Queued</th>
              <ActionsHeader />
            </tr>
          </thead>
          <tbody>
            {queued.map((job) => (
              <tr key={job.id}>
                <td>{job.position}</td>
                <td>{job.libraryId ?? '—'}</td>
                <td>{job.kind}</td>
                <td>{formatDate(job.createdAt)}</td>
                <td>
                  <button class="secondary outline small" onClick={() => void cancel.run(job)} aria-label={`Cancel job ${job.id}`}>
                    Cancel
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <h2>Recently ended</h2>
      {ended.data && ended.data.jobs.length === 0 ? <Empty>No job has ended yet.</Empty> : null}
      {ended.data?.jobs.map((job) => (
        <details key={job.id} class={`job job-${job.state}`}>
          <summary>
            <EndedBadge job={job} /> <strong>{job.libraryId ?? job.kind}</strong>{' '}
            {job.version ? <code>{job.version}</code> : null} · job {job.id} · {formatDate(job.finishedAt)} · {formatDuration(job.elapsedMs)}
            {job.errorMessage ? <div class="error-text">{job.errorMessage}</div> : job.progress ? <div class="muted">{job.progress}</div> : null}
          </summary>
          <Log job={job} />
        </details>
      ))}
    </section>
  )
}

/** A job's log lines; new ones are fetched after the last seen while the job runs. */
function Log({ job }: { job: JobRow }) {
  const [lines, setLines] = useState<LogLine[]>([])
  const after = lines.at(-1)?.id
  useLoad(
    async () => {
      const { lines: more } = await api<{ lines: LogLine[] }>('GET', `/api/jobs/${job.id}/log${query({ after })}`)
      if (more.length > 0) setLines((seen) => [...seen, ...more.filter((line) => line.id > (seen.at(-1)?.id ?? 0))])
    },
    [job.id, job.state],
    job.state === 'running' ? POLL_MS : undefined,
  )
  if (lines.length === 0) return <p class="muted">No log lines.</p>
  return (
    <pre class="log" aria-label={`Log of job ${job.id}`}>
      {lines.map((line) => `${new Date(line.time).toLocaleTimeString('en-GB')} ${line.level.padEnd(5)} ${line.message}\n`)}
    </pre>
  )
}

/** How a job ended; a success that skipped content (a page, an include) says so. */
function EndedBadge({ job }: { job: JobRow }) {
  if (job.state === 'succeeded' && job.warnings > 0) {
    return <span class="badge state-warning">succeeded with {job.warnings === 1 ? '1 warning' : `${job.warnings} warnings`}</span>
  }
  return <span class={`badge state-${job.state === 'succeeded' ? 'finalized' : 'error'}`}>{job.state}</span>
}
