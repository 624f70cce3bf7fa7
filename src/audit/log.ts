/**
 * The audit log: what changed who may reach what, and who was refused. Each event says when, who
 * (the actor), from where (the client's address; none for the CLI) and on what (the target), with
 * a few facts as details. It never holds a secret (a key, a password, a token, a sealed
 * connection's value) nor a question asked of the docs: details name things, never their content.
 *
 * Access rules, keys, users and the CLI's settings record their event in the transaction that
 * makes the change, so neither is without the other. The dashboard's settings, single sign-on's
 * user changes and backups record theirs right after the change: a failure in between (a full
 * disk) can leave such a change without its event. Refusals (a blocked library, a failed sign-in)
 * record theirs beside the refusal, which is answered even when the record cannot be written.
 *
 * Events older than `audit.retentionDays` go: at start-up, and at most hourly as events are written.
 */
import os from 'node:os'
import { LecternError } from '../errors.js'
import { AUDIT_ACTIONS, type AuditAction } from './actions.js'
import { readSetting } from '../settings.js'
import type { AuditActor, AuditEvent, AuditFilter, AuditOutcome } from '../store/audit.js'
import type { Store } from '../store/index.js'

const OUTCOMES: Partial<Record<AuditAction, AuditOutcome>> = {
  'access.blocked': 'blocked',
  'signin.failed': 'failure',
  'backup.failed': 'failure',
  'restore.failed': 'failure',
  'gitops.failed': 'failure',
  'webhook.refused': 'blocked',
}

/** Who acts and from where, as the surface it came through knows it. */
export interface AuditContext {
  actor: AuditActor
  address: string | null
}

/** The CLI, working on the data directory: its actor is the operating-system user that runs it. */
export function cliContext(): AuditContext {
  let name: string | null
  try {
    name = os.userInfo().username
  } catch {
    // A container's user may have no passwd entry.
    name = process.env.USER ?? null
  }
  return { actor: { kind: 'cli', name }, address: null }
}

/** Lectern itself: a scheduled backup, a restore applied at start-up. */
export const SYSTEM: AuditContext = { actor: { kind: 'system', name: null }, address: null }

const HOUR_MS = 60 * 60 * 1000
const lastPruned = new WeakMap<Store, number>()

/** Records one event. `target` names what it acted on: a library ID, a user's email, a key, a setting, an archive. */
export async function audit(store: Store, context: AuditContext, action: AuditAction, target: string | null, details: Record<string, unknown> = {}): Promise<void> {
  await store.audit.record({ action, outcome: OUTCOMES[action] ?? 'success', actor: context.actor, address: context.address, target, details })
  if (Date.now() - (lastPruned.get(store) ?? 0) >= HOUR_MS) await pruneAudit(store)
}

/** Removes the events older than `audit.retentionDays` (0 keeps them all); returns how many went. */
export async function pruneAudit(store: Store, now = new Date()): Promise<number> {
  lastPruned.set(store, now.getTime())
  const days = await readSetting(store.settings, 'audit.retentionDays')
  if (days === 0) return 0
  return await store.audit.prune(new Date(now.getTime() - days * 24 * HOUR_MS))
}

const UNITS: Record<string, number> = { m: 60 * 1000, h: HOUR_MS, d: 24 * HOUR_MS, w: 7 * 24 * HOUR_MS }

/** A date, optionally with a time (`T` or a space between, as the table prints it) and a zone; without one, UTC. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i

/**
 * A bound of a time filter as an ISO time: an age (`30m`, `24h`, `7d`, `2w`) back from `now`, or
 * a date or time (`2026-12-01`, `2026-12-01 09:00`, `2026-12-01T09:00:00+01:00`). Times without a
 * zone are UTC, as the log prints them, whatever the host's zone; a date is its start. A date
 * that does not exist (February 30th) is refused, not rolled over.
 */
export function parseTimeBound(text: string, what: string, now = new Date()): string {
  const trimmed = text.trim()
  const age = /^(\d{1,6})([mhdw])$/.exec(trimmed)
  if (age) return new Date(now.getTime() - Number(age[1]) * UNITS[age[2]]).toISOString()
  const parts = DATE_TIME.exec(trimmed)
  if (parts) {
    const [, year, month, day, hour = '0', minute = '0', second = '0', ms = '0', zone = 'Z'] = parts
    const fields = [year, month, day, hour, minute, second].map(Number)
    const utc = Date.UTC(fields[0], fields[1] - 1, fields[2], fields[3], fields[4], fields[5], Number(ms.padEnd(3, '0')))
    const exists = new Date(utc).toISOString().startsWith(`${year}-${month}-${day}T${hour.padStart(2, '0')}:${minute}`)
    if (exists && fields[5] < 60) {
      const offset = zone.toUpperCase() === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2))) * 60_000
      return new Date(utc - offset).toISOString()
    }
  }
  throw new LecternError('validation_error', `${what} must be an age such as 30m, 24h, 7d or 2w, or a date or time such as 2026-12-01, 2026-12-01 09:00 (UTC) or 2026-12-01T09:00:00+01:00; got "${text}".`)
}

/** A filter as a person writes it: the store's fields, with times as ages or dates (parseTimeBound). */
export type AuditQuery = AuditFilter

/** The query as the store reads it; an action that names none of AUDIT_ACTIONS, nor a group of them, is refused. */
export function auditFilter(query: AuditQuery, now = new Date()): AuditFilter {
  const { since, until, ...rest } = query
  const action = query.action?.trim().toLowerCase()
  if (action !== undefined && !Object.keys(AUDIT_ACTIONS).some((known) => known === action || known.startsWith(`${action}.`))) {
    throw new LecternError('validation_error', `No audit action is "${action}" or starts with "${action}.": the actions are ${Object.keys(AUDIT_ACTIONS).join(', ')}.`)
  }
  const bounds = {
    ...(since === undefined ? {} : { since: parseTimeBound(since, 'since', now) }),
    ...(until === undefined ? {} : { until: parseTimeBound(until, 'until', now) }),
  }
  if (bounds.since !== undefined && bounds.until !== undefined && bounds.since > bounds.until) {
    throw new LecternError('validation_error', `since (${bounds.since}) is after until (${bounds.until}): no event could match; swap them.`)
  }
  return { ...rest, ...(action === undefined ? {} : { action }), ...bounds }
}

/** One page of the log, newest first, and the cursor of the next (older) page; null when this is the last. */
export async function readAudit(store: Store, filter: AuditFilter, page: { limit: number; cursor?: number }): Promise<{ events: AuditEvent[]; nextCursor: number | null }> {
  const events = await store.audit.list(filter, { limit: page.limit + 1, before: page.cursor })
  const more = events.length > page.limit
  const shown = events.slice(0, page.limit)
  return { events: shown, nextCursor: more ? shown.at(-1)!.id : null }
}

const EXPORT_PAGE = 1000

/** Every matching event, oldest first, read a page at a time: the JSON lines a SIEM takes in. */
export async function* exportAudit(store: Store, filter: AuditFilter): AsyncGenerator<AuditEvent> {
  let after = 0
  for (;;) {
    const events = await store.audit.list(filter, { limit: EXPORT_PAGE, after })
    yield* events
    if (events.length < EXPORT_PAGE) return
    after = events.at(-1)!.id
  }
}
