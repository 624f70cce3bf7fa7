import { Flags } from '@oclif/core'
import { colour, table } from '../cli/output.js'
import { LecternCommand } from '../cli/run.js'
import { AUDIT_ACTIONS } from '../src/audit/actions.js'
import { auditFilter, exportAudit, readAudit } from '../src/audit/log.js'
import { AUDIT_OUTCOMES, type AuditEvent } from '../src/store/audit.js'

type AuditPage = Awaited<ReturnType<typeof readAudit>>

const outcomeColour = (event: AuditEvent) =>
  event.outcome === 'success' ? event.outcome : event.outcome === 'blocked' ? colour.yellow(event.outcome) : colour.red(event.outcome)

const actorOf = (event: AuditEvent) => (event.actor.name === null ? event.actor.kind : `${event.actor.kind}: ${event.actor.name}`)

const DETAILS_WIDTH = 80

/** The event's details in a line: `access=restricted users=alice@example.com groups=-`, cut at DETAILS_WIDTH (--json has them whole). */
function detailsOf(event: AuditEvent): string {
  const shown = (value: unknown): string => (Array.isArray(value) ? (value.length === 0 ? '-' : value.map(shown).join(',')) : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value))
  const line = Object.entries(event.details).map(([key, value]) => `${key}=${shown(value)}`).join(' ')
  return line === '' ? '-' : line.length > DETAILS_WIDTH ? `${line.slice(0, DETAILS_WIDTH - 3)}...` : line
}

function render(page: AuditPage): string {
  if (page.events.length === 0) return 'No audit events match.'
  const rows = table(page.events, [
    { header: 'TIME', value: (e) => e.at.slice(0, 19).replace('T', ' ') },
    { header: 'ACTION', value: (e) => e.action },
    { header: 'OUTCOME', value: outcomeColour },
    { header: 'ACTOR', value: actorOf },
    { header: 'ADDRESS', value: (e) => e.address ?? '-' },
    { header: 'TARGET', value: (e) => e.target ?? '-' },
    { header: 'DETAILS', value: detailsOf },
  ])
  return page.nextCursor === null ? rows : `${rows}\n\nOlder events: add --cursor ${page.nextCursor}.`
}

export default class Audit extends LecternCommand {
  static override summary = 'Show the audit log: access rules, keys, sign-ins, users and roles, settings, backups, restores, GitOps syncs, connections, webhooks and blocked access attempts.'
  static override description = `Newest first, times in UTC. Each event names its actor (a user, an API key as its owner and ID, the CLI's system user, or Lectern itself), the client's address and the target. No key, password, token or question is ever in it. Events are kept audit.retentionDays days (default 365; \`lectern config set audit.retentionDays 730\`).

--since and --until take an age (30m, 24h, 7d, 2w) or a date or time (2026-12-01, 2026-12-01 09:00, 2026-12-01T09:00:00+01:00): without a zone it is UTC, as the table prints it, and a date is its start (--until 2026-12-03 ends as that day begins). --action takes an action or its group (key, access, signin, settings, backup, restore, user, gitops, connection, webhook), in any case. --actor and --target match part of the name, in any case.

--jsonl prints every matching event, oldest first, one JSON object a line: the export a SIEM takes in (GET /api/audit/export gives the same).

Actions: ${Object.entries(AUDIT_ACTIONS)
    .map(([action, meaning]) => `${action} (${meaning})`)
    .join('; ')}.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --since 7d --action access',
    '<%= config.bin %> <%= command.id %> --outcome blocked --json',
    '<%= config.bin %> <%= command.id %> --since 2026-12-01 --jsonl > lectern-audit.jsonl',
  ]
  static override enableJsonFlag = true
  static override flags = {
    since: Flags.string({ summary: 'Events at or after this age or time, e.g. 24h, 7d or 2026-12-01.' }),
    until: Flags.string({ summary: 'Events at or before this age or time.' }),
    action: Flags.string({ summary: 'An action, or a group of them: key, access, signin, settings, backup, restore, user, gitops, connection, webhook.' }),
    actor: Flags.string({ summary: "Part of the actor's name, e.g. an email." }),
    target: Flags.string({ summary: 'Part of the target, e.g. a library ID.' }),
    outcome: Flags.string({ summary: 'success, failure or blocked.', options: [...AUDIT_OUTCOMES] }),
    limit: Flags.integer({ summary: 'Events to show (at most 500).', default: 50, min: 1, max: 500 }),
    cursor: Flags.integer({ summary: 'Show the events older than this one (the cursor a previous page printed).', min: 1 }),
    jsonl: Flags.boolean({ summary: 'Print every matching event as JSON lines, oldest first (ignores --limit and --cursor).', exclusive: ['json'] }),
  }

  async run(): Promise<AuditPage | undefined> {
    const { flags } = await this.parse(Audit)
    const { since, until, action, actor, target, limit, cursor } = flags
    return this.withRuntime(flags, 'read', async (rt) => {
      const filter = auditFilter({ since, until, action, actor, target, outcome: flags.outcome as AuditEvent['outcome'] | undefined })
      if (flags.jsonl) {
        for await (const event of exportAudit(rt.store, filter)) process.stdout.write(`${JSON.stringify(event)}\n`)
        return undefined
      }
      const page = await readAudit(rt.store, filter, { limit, cursor })
      this.log(render(page))
      return page
    })
  }
}
