import type { ComponentChildren } from 'preact'
import type { ApiError } from './api'

/**
 * An API refusal, as the API worded it; `role="alert"` so screen readers announce it. The code
 * follows in small print, for a support request, not as part of the sentence.
 */
export function ErrorNote({ error }: { error: ApiError | undefined }) {
  if (!error) return null
  return (
    <p class="error-note" role="alert">
      {error.message}
      {error.code !== 'internal_error' && error.code !== 'unreachable' ? (
        <>
          {' '}
          <small class="error-code">
            (code: <code>{error.code}</code>)
          </small>
        </>
      ) : null}
    </p>
  )
}

const STATE_LABELS: Record<string, string> = {
  initial: 'not indexed yet',
  queued: 'queued',
  processing: 'processing',
  finalized: 'ready',
  error: 'error',
}

export function StateBadge({ state }: { state: string }) {
  return <span class={`badge state-${state}`}>{STATE_LABELS[state] ?? state}</span>
}

export function Badge({ children, title }: { children: ComponentChildren; title?: string }) {
  return (
    <span class="badge" title={title}>
      {children}
    </span>
  )
}

/**
 * A key's revocation behind a second click, for a row's button column: "Revoke…", then "Revoke
 * now" and "Keep" in a labelled group. The page keeps which row is asking (one at a time).
 */
export function RevokeKeyStep({ name, asking, onAsk, onKeep, onRevoke }: { name: string; asking: boolean; onAsk: () => void; onKeep: () => void; onRevoke: () => void }) {
  if (!asking) {
    return (
      <button class="secondary outline small" onClick={onAsk} aria-label={`Revoke key ${name}`}>
        Revoke…
      </button>
    )
  }
  return (
    <span role="group" aria-label={`Confirm revoking ${name}`}>
      <button class="contrast small" onClick={onRevoke} aria-label={`Revoke ${name} now`}>
        Revoke now
      </button>{' '}
      <button class="secondary outline small" onClick={onKeep}>
        Keep
      </button>
    </span>
  )
}

/** The header of a table's last column, which holds each row's buttons: named for screen readers only. */
export function ActionsHeader() {
  return (
    <th scope="col">
      <span class="visually-hidden">Actions</span>
    </th>
  )
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>
}

export const formatNumber = (n: number): string => n.toLocaleString('en-US')

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—'
  const date = new Date(iso)
  return date.toLocaleString('en-GB', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—'
  const seconds = Math.round(ms / 1000)
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  return minutes < 60 ? `${minutes} min ${seconds % 60} s` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`
}
