/**
 * The audit log (GET /api/audit): a page of events, newest first, with the API's filters, older
 * pages through its cursor, and every matching event as JSON lines (GET /api/audit/export). A
 * filter the API refuses (a "since" that is neither an age nor a date) shows its message.
 */
import { Fragment } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { AUDIT_ACTIONS } from '../../../src/audit/actions'
import { api, query } from '../api'
import { Empty, ErrorNote } from '../components'
import { useLoad } from '../hooks'
import type { AuditEvent, AuditPage as AuditAnswer } from '../types'

const ACTIONS: Record<string, string> = AUDIT_ACTIONS

/** The groups `action` takes: every action whose name starts with the group and a dot. */
const GROUPS = [
  { value: 'access', label: 'Library access' },
  { value: 'key', label: 'API keys' },
  { value: 'signin', label: 'Sign-ins' },
  { value: 'user', label: 'Users' },
  { value: 'settings', label: 'Settings' },
  { value: 'backup', label: 'Backups' },
  { value: 'restore', label: 'Restores' },
]

const OTHER = 'other'
const SINCE = [
  { value: '', label: 'All time' },
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
  { value: OTHER, label: 'Since an age or a date…' },
]

const PAGE_SIZES = [10, 25, 50, 100, 200]

const OUTCOME_CLASSES: Record<AuditEvent['outcome'], string> = { success: 'state-finalized', failure: 'state-error', blocked: 'state-warning' }

const ACTOR_KINDS: Record<AuditEvent['actor']['kind'], string> = {
  'user': 'signed-in user',
  'api-key': 'API key',
  'cli': 'command line',
  'anonymous': 'anonymous',
  'system': 'Lectern',
  'webhook': 'push webhook',
}

/** The form as typed; its filters apply when a select changes or the form is submitted. */
interface Draft {
  since: string
  /** The age or date typed when `since` is OTHER. */
  sinceText: string
  action: string
  outcome: string
  actor: string
  target: string
}

const BLANK: Draft = { since: '', sinceText: '', action: '', outcome: '', actor: '', target: '' }

type Filters = Record<'since' | 'action' | 'outcome' | 'actor' | 'target', string>

const filtersOf = (draft: Draft): Filters => ({
  since: draft.since === OTHER ? draft.sinceText.trim() : draft.since,
  action: draft.action,
  outcome: draft.outcome,
  actor: draft.actor.trim(),
  target: draft.target.trim(),
})

/** The day and the time to the second, in the viewer's locale and time zone. */
const localDay = (iso: string): string => new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' })
const localClock = (iso: string): string => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })

const utcTime = (iso: string): string => `${new Date(iso).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')} UTC`

const detailValue = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value))

export function AuditPage() {
  const [draft, setDraft] = useState<Draft>(BLANK)
  const [filters, setFilters] = useState<Filters>(filtersOf(BLANK))
  const [limit, setLimit] = useState(50)
  // The cursors of the older pages opened, in order: the last is the page shown (none: the newest).
  const [cursors, setCursors] = useState<number[]>([])
  const cursor = cursors.at(-1)
  const list = useLoad(() => api<AuditAnswer>('GET', `/api/audit${query({ ...filters, limit, cursor })}`), [JSON.stringify(filters), limit, cursor])
  const sinceText = useRef<HTMLInputElement>(null)
  useEffect(() => {
    if (draft.since === OTHER) sinceText.current?.focus()
  }, [draft.since])

  const apply = (next: Draft) => {
    setDraft(next)
    setFilters(filtersOf(next))
    setCursors([])
    // Applying the same filters again reads the log again: events may have come since.
    list.reload()
  }
  const select = (field: 'since' | 'action' | 'outcome') => (event: { currentTarget: HTMLSelectElement }) => {
    const next = { ...draft, [field]: event.currentTarget.value }
    // "Since an age or a date" waits for the age or date.
    if (field === 'since' && next.since === OTHER) setDraft(next)
    else apply(next)
  }
  const filtered = Object.values(filters).some((value) => value !== '')
  const data = list.error ? undefined : list.data
  const events = data?.events ?? []
  return (
    <section>
      <h1>Audit log</h1>
      <p>
        Who changed who may reach what, and who was refused: sign-ins, API keys, library access, users, settings, backups and restores, newest first. Times are in your
        time zone (hover one for UTC). <code>lectern audit</code> reads the same log.
      </p>
      <form
        class="filters"
        aria-label="Filter events"
        onSubmit={(event) => {
          event.preventDefault()
          apply(draft)
        }}
      >
        <div class="grid">
          <label>
            Since
            <select aria-label="Since" value={draft.since} onChange={select('since')}>
              {SINCE.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
          {draft.since === OTHER ? (
            <label>
              Age or date
              <input
                ref={sinceText}
                value={draft.sinceText}
                onInput={(event) => setDraft({ ...draft, sinceText: event.currentTarget.value })}
                placeholder="e.g. 2w or 2026-12-01"
                title="An age (30m, 24h, 7d, 2w) or a date or time (2026-12-01, 2026-12-01T09:00:00Z), in UTC; Enter applies it"
                maxLength={40}
              />
            </label>
          ) : null}
          <label>
            Action
            <select aria-label="Action" value={draft.action} onChange={select('action')}>
              <option value="">All actions</option>
              <optgroup label="Groups">
                {GROUPS.map((group) => (
                  <option key={group.value} value={group.value}>
                    {group.label} ({group.value}.*)
                  </option>
                ))}
              </optgroup>
              <optgroup label="Actions">
                {Object.entries(ACTIONS).map(([action, meaning]) => (
                  <option key={action} value={action} title={meaning}>
                    {action}
                  </option>
                ))}
              </optgroup>
            </select>
          </label>
          <label>
            Outcome
            <select aria-label="Outcome" value={draft.outcome} onChange={select('outcome')}>
              <option value="">Any outcome</option>
              <option value="success">success</option>
              <option value="failure">failure</option>
              <option value="blocked">blocked</option>
            </select>
          </label>
        </div>
        <div class="grid">
          <label>
            Actor
            <input type="search" value={draft.actor} onInput={(event) => setDraft({ ...draft, actor: event.currentTarget.value })} placeholder="part of an email or a name" maxLength={320} />
          </label>
          <label>
            Target
            <input type="search" value={draft.target} onInput={(event) => setDraft({ ...draft, target: event.currentTarget.value })} placeholder="part of a library ID, an email, a key" maxLength={320} />
          </label>
          <label>
            Per page
            <select
              aria-label="Per page"
              value={String(limit)}
              onChange={(event) => {
                setLimit(Number(event.currentTarget.value))
                setCursors([])
              }}
            >
              {PAGE_SIZES.map((size) => (
                <option key={size} value={String(size)}>
                  {size}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div class="actions">
          <button type="submit">Apply filters</button>
          <button type="button" class="secondary outline" disabled={!filtered && draft.since !== OTHER} onClick={() => apply(BLANK)}>
            Clear filters
          </button>
          {/* The same filters the list was read with: refused ones show their message instead. */}
          {data ? (
            <a href={`/api/audit/export${query(filters)}`} download title="Every event these filters match, oldest first, one JSON object a line">
              Export JSON lines
            </a>
          ) : null}
        </div>
      </form>
      <ErrorNote error={list.error} />
      {!list.data && !list.error ? <p aria-busy="true">Loading…</p> : null}
      {data && events.length === 0 ? (
        <Empty>
          {filtered
            ? 'No event matches these filters.'
            : 'No events yet. Sign-ins, API keys, library access, users, settings, backups and restores are recorded here as they happen.'}
        </Empty>
      ) : null}
      {events.length > 0 ? (
        <div class="overflow-auto" aria-busy={list.loading}>
          <table class="striped" aria-label="Audit events">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Action</th>
                <th scope="col">Outcome</th>
                <th scope="col">Actor</th>
                <th scope="col">Address</th>
                <th scope="col">Target</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {events.map((event) => (
                <EventRow key={event.id} event={event} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {data && (cursors.length > 0 || data.nextCursor !== null) ? (
        <nav aria-label="Pages" class="pager">
          <button class="secondary" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Newer events
          </button>
          <span>Page {cursors.length + 1}</span>
          <button class="secondary" disabled={data.nextCursor === null} onClick={() => data.nextCursor !== null && setCursors([...cursors, data.nextCursor])}>
            Older events
          </button>
        </nav>
      ) : null}
    </section>
  )
}

function EventRow({ event }: { event: AuditEvent }) {
  const details = Object.entries(event.details)
  return (
    <tr>
      <td class="nowrap">
        <time dateTime={event.at} title={utcTime(event.at)}>
          {localDay(event.at)}
          <br />
          {localClock(event.at)}
        </time>
      </td>
      <td>
        <code title={ACTIONS[event.action]}>{event.action}</code>
      </td>
      <td>
        <span class={`badge ${OUTCOME_CLASSES[event.outcome]}`}>{event.outcome}</span>
      </td>
      <td>
        {event.actor.name ?? '—'}
        <div class="muted">{ACTOR_KINDS[event.actor.kind] ?? event.actor.kind}</div>
      </td>
      <td>{event.address ?? '—'}</td>
      <td>{event.target ?? '—'}</td>
      <td class="details">
        {details.length === 0
          ? '—'
          : details.map(([name, value], i) => (
              <Fragment key={name}>
                {i > 0 ? ' ' : null}
                <code>
                  {name}={detailValue(value)}
                </code>
              </Fragment>
            ))}
      </td>
    </tr>
  )
}
