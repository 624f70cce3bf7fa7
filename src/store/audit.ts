/**
 * The audit log's rows (migration 0030): written once, read newest first, pruned by age. What an
 * event means, and who writes which, is src/audit/log.ts.
 */
import type { Sql, SqlValue } from './sql.js'

export const AUDIT_OUTCOMES = ['success', 'failure', 'blocked'] as const
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number]

/** Who acted: a signed-in user, an API key, the CLI on the data directory, nobody known, Lectern itself, a git host's push webhook. */
export const ACTOR_KINDS = ['user', 'api-key', 'cli', 'anonymous', 'system', 'webhook'] as const
export type ActorKind = (typeof ACTOR_KINDS)[number]

export interface AuditActor {
  kind: ActorKind
  /** An email, a key as `owner (key 12)`, the CLI's system user; null when nobody is known. */
  name: string | null
}

export interface NewAuditEvent {
  action: string
  outcome: AuditOutcome
  actor: AuditActor
  address: string | null
  target: string | null
  details: Record<string, unknown>
}

export interface AuditEvent extends NewAuditEvent {
  id: number
  at: string
}

export interface AuditFilter {
  /** ISO times, inclusive. */
  since?: string
  until?: string
  /** An action (`key.created`), or a group of them by its leading parts (`key`, `access.rule`). */
  action?: string
  /** Part of the actor's name or the target, in any case. */
  actor?: string
  target?: string
  outcome?: AuditOutcome
}

export interface AuditRepository {
  record(event: NewAuditEvent, at?: Date): Promise<AuditEvent>
  /**
   * `limit` events that match: the newest, older than the event `before` when given; or with
   * `after`, the oldest newer than that event, oldest first (an export reads the log in order).
   */
  list(filter: AuditFilter, page: { limit: number; before?: number; after?: number }): Promise<AuditEvent[]>
  /** Removes the events before `at`; returns how many went. */
  prune(at: Date): Promise<number>
}

interface AuditRow {
  pk: number
  at: string
  action: string
  outcome: AuditOutcome
  actor_kind: ActorKind
  actor: string | null
  address: string | null
  target: string | null
  details: string | null
}

const toEvent = (row: AuditRow): AuditEvent => ({
  id: Number(row.pk),
  at: row.at,
  action: row.action,
  outcome: row.outcome,
  actor: { kind: row.actor_kind, name: row.actor },
  address: row.address,
  target: row.target,
  details: row.details === null ? {} : (JSON.parse(row.details) as Record<string, unknown>),
})

const literally = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

function whereOf(filter: AuditFilter): { where: string[]; params: SqlValue[] } {
  const where: string[] = []
  const params: SqlValue[] = []
  const add = (clause: string, ...values: SqlValue[]) => {
    where.push(clause)
    params.push(...values)
  }
  if (filter.since !== undefined) add('at >= ?', filter.since)
  if (filter.until !== undefined) add('at <= ?', filter.until)
  if (filter.action !== undefined) add("(action = ? OR action LIKE ? ESCAPE '\\')", filter.action, `${literally(filter.action)}.%`)
  if (filter.actor !== undefined) add("LOWER(actor) LIKE ? ESCAPE '\\'", `%${literally(filter.actor.toLowerCase())}%`)
  if (filter.target !== undefined) add("LOWER(target) LIKE ? ESCAPE '\\'", `%${literally(filter.target.toLowerCase())}%`)
  if (filter.outcome !== undefined) add('outcome = ?', filter.outcome)
  return { where, params }
}

export function createAuditRepository(sql: Sql): AuditRepository {
  return {
    async record(event, at = new Date()) {
      const row = await sql.get<AuditRow>(
        'INSERT INTO audit_events (at, action, outcome, actor_kind, actor, address, target, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *',
        [at.toISOString(), event.action, event.outcome, event.actor.kind, event.actor.name, event.address, event.target, Object.keys(event.details).length > 0 ? JSON.stringify(event.details) : null],
      )
      return toEvent(row!)
    },
    async list(filter, page) {
      const { where, params } = whereOf(filter)
      const ascending = page.after !== undefined
      if (page.before !== undefined || ascending) {
        where.push(ascending ? 'pk > ?' : 'pk < ?')
        params.push(ascending ? page.after! : page.before!)
      }
      const rows = await sql.all<AuditRow>(
        `SELECT * FROM audit_events ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY pk ${ascending ? 'ASC' : 'DESC'} LIMIT ?`,
        [...params, page.limit],
      )
      return rows.map(toEvent)
    },
    prune: async (at) => (await sql.run('DELETE FROM audit_events WHERE at < ?', [at.toISOString()])).changes,
  }
}
