/**
 * Storing and removing a connection, whoever asks (`lectern connections add`, the dashboard's
 * Settings, a teamspace's Connections): the base URL each kind needs, checked the same way for
 * all. The token is sealed by the store. Each change is audited in the transaction that makes it,
 * naming the connection, its kind and address, never its token or key.
 */
import { audit, type AuditContext } from '../audit/log.js'
import { LecternError } from '../errors.js'
import type { AddressGuard } from './address-guard.js'
import { checkKnownHosts, deployKeyPublicHalf, parseSshHost } from './git-ssh.js'
import type { Store } from '../store/index.js'
import { hostOf, NOTION_API_URL, normalizeBaseUrl, type Connection, type ConnectionKind, type ConnectionScope, type NewConnection } from '../store/connections.js'

export interface ConnectionInput {
  kind: ConnectionKind
  name: string
  token: string
  /** Confluence: the site URL. */
  site?: string
  /** Confluence Cloud: the account email its API tokens need. */
  email?: string
  /** Git: the host, with :port if not the default. */
  host?: string
  /** Notion: the API base URL (default api.notion.com), e.g. a proxy. */
  apiUrl?: string
  /** SSH git (on-premise): the host keys to trust, as known_hosts lines; `token` is then the deploy key. */
  knownHosts?: string
}

/** Whether the input is of an SSH git connection: its host is written ssh://, or it brings known hosts. */
const isSsh = (input: ConnectionInput) => input.kind === 'git' && (input.knownHosts !== undefined || /^ssh:\/\//i.test(input.host?.trim() ?? ''))

export function baseUrlOf(input: ConnectionInput): string {
  if (input.kind === 'confluence') {
    if (!input.site) throw new LecternError('validation_error', 'A Confluence connection needs its site URL (--site, or "site").')
    if (/\.atlassian\.net/i.test(input.site) && !input.email) throw new LecternError('validation_error', 'Confluence Cloud API tokens need the account email (--email, or "email").')
    return input.site
  }
  if (input.kind === 'git') {
    if (!input.host) throw new LecternError('validation_error', 'A git connection needs its host (--host, or "host").')
    if (isSsh(input)) {
      const { host, port } = parseSshHost(input.host)
      return `ssh://${host}${port === 22 ? '' : `:${port}`}`
    }
    const host = input.host.trim()
    // A git connection is for a whole host: a path would read as if it were narrower.
    if (!/^(https?:\/\/)?[A-Za-z0-9.-]+(:([1-9]\d{0,4}))?\/?$/i.test(host) || Number(/:(\d+)\/?$/.exec(host)?.[1] ?? 443) > 65535) {
      throw new LecternError('validation_error', `"${host}" is not a git host: write host, host:port or https://host[:port], without a path (the connection serves every repository there).`)
    }
    return host.includes('://') ? host : `https://${host}`
  }
  return input.apiUrl ?? NOTION_API_URL
}

const WHAT: Record<ConnectionKind, string> = { confluence: 'Confluence site', notion: 'Notion API', git: 'git host' }

/**
 * Loopback never puts a token on a network (the Secure Contexts rule for http://127.0.0.1), and
 * cloud mode reaches it only when the operator allows it (fetch.allow). Git has no such
 * exception: a git token goes only over https (sources/git-token.ts), so an http git host could
 * never be used.
 */
const isLoopback = (url: URL, kind: ConnectionKind) => kind !== 'git' && /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(url.hostname)

/**
 * Cloud mode (a guard): a connection's token goes only over https, when it is stored and when a
 * job reads through it (a connection stored before this rule).
 */
export function refuseCleartextConnection(connection: { kind: ConnectionKind; baseUrl: string }, guard: AddressGuard | undefined): void {
  if (!guard) return
  const url = new URL(connection.baseUrl)
  if (url.protocol === 'http:' && !isLoopback(url, connection.kind)) {
    throw new LecternError('validation_error', `A token is sent only over https: use the https:// URL of the ${WHAT[connection.kind]} (${url.host}).`)
  }
}

/** The base URL of a connection about to be stored, refused over plain http in cloud mode. */
export function checkedBaseUrl(input: ConnectionInput, guard: AddressGuard | undefined): string {
  // The cloud reads git over https only: an SSH host cannot be checked against private addresses before ssh connects.
  if (guard && isSsh(input)) throw new LecternError('validation_error', 'SSH git connections are for on-premise installs; in the cloud, add the https:// host with a token.')
  const baseUrl = normalizeBaseUrl(baseUrlOf(input))
  if (guard && baseUrl.startsWith('ssh://')) throw new LecternError('validation_error', 'SSH git connections are for on-premise installs; in the cloud, add the https:// host with a token.')
  refuseCleartextConnection({ kind: input.kind, baseUrl }, guard)
  return baseUrl
}

/** What the audit log says of a connection: its name as target, its kind and address (and teamspace) as details. */
async function auditConnection(store: Store, context: AuditContext, action: 'connection.added' | 'connection.removed', scope: ConnectionScope, connection: Connection): Promise<void> {
  const owner = scope.teamPk === null ? {} : { teamId: scope.teamPk }
  await audit(store, context, action, `connection ${connection.name}`, { kind: connection.kind, baseUrl: connection.baseUrl, ...owner })
}

async function createAudited(store: Store, context: AuditContext, scope: ConnectionScope, input: NewConnection): Promise<Connection> {
  return await store.transaction(async () => {
    const created = await store.connections.create(scope, input)
    await auditConnection(store, context, 'connection.added', scope, created)
    return created
  })
}

export async function addConnection(store: Store, context: AuditContext, scope: ConnectionScope, input: ConnectionInput, guard: AddressGuard | undefined): Promise<Connection> {
  if (input.knownHosts !== undefined && input.kind !== 'git') throw new LecternError('validation_error', 'Known hosts belong to SSH git connections only.')
  const baseUrl = checkedBaseUrl(input, guard)
  // A name in use is refused by the store, saying so; a second connection for one host here.
  if (input.kind === 'git' && !(await store.connections.get(scope, input.name))) {
    const transport = baseUrl.startsWith('ssh://') ? 'ssh' : 'https'
    const same = await store.connections.forGitHost(scope, hostOf(baseUrl), transport)
    if (same) throw new LecternError('validation_error', `Connection "${same.name}" already serves ${baseUrl}; one git connection per host and transport decides which credentials are used. Remove it first to replace it.`)
  }
  if (!isSsh(input)) return await createAudited(store, context, scope, { kind: input.kind, name: input.name, baseUrl, email: input.email, token: input.token })
  const { host, port } = parseSshHost(input.host!)
  const knownHosts = checkKnownHosts(input.knownHosts ?? '', host, port)
  const publicKey = await deployKeyPublicHalf(input.token)
  return await createAudited(store, context, scope, { kind: 'git', name: input.name, baseUrl, token: input.token, knownHosts, publicKey })
}

/** Removes a connection with its token, key and webhook secret; libraries read through it keep their snippets. */
export async function removeConnection(store: Store, context: AuditContext, scope: ConnectionScope, name: string): Promise<Connection> {
  return await store.transaction(async () => {
    const removed = await store.connections.remove(scope, name)
    await auditConnection(store, context, 'connection.removed', scope, removed)
    return removed
  })
}
