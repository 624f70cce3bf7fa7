/**
 * `GET /api/v2/libs/metrics`: one library's usage in the shape of Context7's
 * LibraryMetricsResponse, read from what src/store/usage.ts writes (usage_daily, and migration
 * 0015's users, topics and countries). Counts still pending in this process are flushed first;
 * another worker's appear after its next flush.
 *
 * Surfaces: `mcp` is MCP (HTTP and stdio) and REST calls that say `X-Context7-Source: mcp-server`
 * (Context7's MCP server); `cli` is REST with `X-Context7-Source: cli` or `ctx7`; `page` is REST
 * with `X-Context7-Source: web` or `dashboard` (a web page showing docs); everything else on REST,
 * text or JSON, is `txt` ("plain-text documentation requests").
 *
 * Who may read: a library the caller cannot see is unknown (404 library_not_found) as anywhere
 * else. On-premise every key holder and signed-in user is an insider and reads any library's
 * metrics. In the cloud the operator (an admin session or a key of no teamspace) reads any; a
 * tenant's key, or a member signed in, reads only the libraries of its own teamspace.
 */
import { isInTeam, type Caller } from './access.js'
import { LecternError } from '../errors.js'
import type { Mode } from '../config.js'
import { findLibrary } from '../search/resolve.js'
import type { Store } from '../store/index.js'
import type { Library } from '../store/libraries.js'
import type { UsageTransport } from '../store/usage.js'
import type { UsageRecorder } from '../usage/recorder.js'

export const SURFACES = ['page', 'txt', 'mcp', 'cli'] as const
export type Surface = (typeof SURFACES)[number]
type ProjectStats = Record<Surface, number>

export const MIN_DAYS = 1
export const MAX_DAYS = 365
export const DEFAULT_DAYS = 30
/** The most-asked topics reported; the long tail of words asked once says little. */
export const MAX_TOPICS = 100

export interface LibraryMetrics {
  total: ProjectStats
  daily: Array<{ date: string } & ProjectStats & { total: number }>
  mcpClients: { dailyData: Array<{ date: string; uniqueUsersByClient: Record<string, number>; totalUniqueUsers: number }> }
  topics: Array<{ topic: string; count: number }>
  countries: Array<{ country: string; count: number }>
}

const CLIENT_SURFACES: Readonly<Record<string, Surface>> = { 'mcp-server': 'mcp', cli: 'cli', ctx7: 'cli', web: 'page', dashboard: 'page' }

export function surfaceOf(client: string, transport: UsageTransport): Surface {
  if (transport === 'mcp-http' || transport === 'mcp-stdio') return 'mcp'
  return CLIENT_SURFACES[client] ?? 'txt'
}

const DAY_MS = 86_400_000
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10)
const zero = (): ProjectStats => ({ page: 0, txt: 0, mcp: 0, cli: 0 })

/** Anonymous callers read no metrics, in either mode. */
export function refuseAnonymous(caller: Caller): void {
  if (caller.kind === 'anonymous') throw new LecternError('invalid_api_key', 'Library metrics need an API key: send "Authorization: Bearer <API key>".')
}

/**
 * The library, when this caller may read its metrics; else the error that says why not. The
 * operator (an insider: its admin session, a key of no teamspace, the CLI) reads any library's. A
 * teamspace key's own standing is settled first: one whose teamspace is gone or whose user has
 * left it reads nothing, whichever library it names.
 */
export async function libraryForMetrics(store: Store, mode: Mode, caller: Caller, libraryId: string): Promise<Library> {
  refuseAnonymous(caller)
  if (mode === 'cloud' && caller.kind === 'api-key' && !caller.insider) {
    if (caller.teamId === null || caller.userId === null || !await store.teams.byPk(caller.teamId)) {
      throw new LecternError('team_not_found', 'This API key belongs to no teamspace: library metrics are read with a key of the teamspace that owns the library.')
    }
    if (await store.teams.roleOf(caller.teamId, caller.userId) === undefined) {
      throw new LecternError('user_not_found', "This API key's user is no longer a member of its teamspace.")
    }
  }
  const { library } = await findLibrary(store.libraries, libraryId, caller)
  if (mode === 'onprem' || caller.kind === 'local' || (caller.kind !== 'anonymous' && caller.insider)) return library
  if (library.teamPk === null) {
    throw new LecternError('forbidden', `No teamspace owns ${library.id}: only the operator reads the metrics of libraries no teamspace owns.`)
  }
  if (!isInTeam(caller, library.teamPk)) {
    throw new LecternError('forbidden', `Only members of the teamspace that owns ${library.id} may read its metrics.`)
  }
  return library
}

export async function libraryMetrics(store: Store, usage: UsageRecorder, library: Library, days: number, now = new Date()): Promise<LibraryMetrics> {
  await usage.flushSoftly()
  const from = dayOf(now.getTime() - (days - 1) * DAY_MS)

  const total = zero()
  const daily = new Map<string, LibraryMetrics['daily'][number]>()
  const counts = await store.usage.forLibrary(library.pk)
  for (const row of counts) {
    const surface = surfaceOf(row.client, row.transport)
    total[surface] += row.requests
    if (row.day < from) continue
    let point = daily.get(row.day)
    if (!point) daily.set(row.day, (point = { date: row.day, ...zero(), total: 0 }))
    point[surface] += row.requests
    point.total += row.requests
  }

  const { byClient: users, distinct } = await store.usage.users(library.pk, from)
  const byClient = new Map<string, Record<string, number>>()
  for (const row of users) byClient.set(row.day, { ...byClient.get(row.day), [row.client]: row.users })

  return {
    total,
    daily: [...daily.values()],
    mcpClients: { dailyData: distinct.map((row) => ({ date: row.day, uniqueUsersByClient: byClient.get(row.day) ?? {}, totalUniqueUsers: row.users })) },
    topics: await store.usage.topics(library.pk, MAX_TOPICS),
    countries: await store.usage.countries(library.pk),
  }
}
