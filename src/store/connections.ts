/**
 * Connections: the credentials Lectern holds for Confluence sites, Notion workspaces and private
 * git hosts, so a source spec names a connection instead of carrying a token. The token is sealed
 * (AES-GCM) on the way in and opened only by `token()`, which jobs call when they fetch; nothing
 * that lists or describes a connection ever returns it. A connection is the install's or, in cloud
 * mode, a teamspace's; every lookup names whose (a `ConnectionScope`), so one owner never reaches
 * another's.
 */
import { LecternError } from '../errors.js'
import type { SecretBox } from '../secrets/cipher.js'
import { nowIso } from './db.js'
import { isUniqueViolation, type Sql, type SqlValue } from './sql.js'

export const CONNECTION_KINDS = ['confluence', 'notion', 'git'] as const
export type ConnectionKind = (typeof CONNECTION_KINDS)[number]

export const NOTION_API_URL = 'https://api.notion.com'

/** Whose connections: the install's (`teamPk: null`) or a teamspace's. */
export interface ConnectionScope {
  teamPk: number | null
}

export const INSTALL_CONNECTIONS: ConnectionScope = { teamPk: null }

export interface Connection {
  id: number
  kind: ConnectionKind
  name: string
  /** Confluence: the site URL; Notion: the API base URL; git: `https://<host>`, or `ssh://<host>[:port]` for SSH. No trailing slash. */
  baseUrl: string
  /** Confluence Cloud signs in with email + API token; absent means a bearer token. */
  email: string | null
  /** Git: whether the connection holds the secret its host signs push webhooks with (src/webhooks/). */
  webhook: boolean
  /** SSH git: the public half of the deploy key, to install on the host. */
  publicKey: string | null
  createdAt: string
}

export interface NewConnection {
  kind: ConnectionKind
  name: string
  baseUrl: string
  email?: string
  /** The token; for SSH git, the deploy key's private half. */
  token: string
  /** SSH git: the host keys to trust (known_hosts lines, src/sources/git-ssh.ts) and the deploy key's public half. */
  knownHosts?: string
  publicKey?: string
}

/** How a git connection reaches its host. */
export type GitTransport = 'https' | 'ssh'

export interface ConnectionsRepository {
  create(scope: ConnectionScope, input: NewConnection): Promise<Connection>
  list(scope: ConnectionScope, kind?: ConnectionKind): Promise<Connection[]>
  get(scope: ConnectionScope, name: string): Promise<Connection | undefined>
  remove(scope: ConnectionScope, name: string): Promise<Connection>
  /** The plain token of a connection; call it only where a request is about to be sent. */
  token(scope: ConnectionScope, name: string): Promise<string>
  /** The git connection for a host (`gitlab.example.com`, with a port when not the default), over https (the default) or SSH. */
  forGitHost(scope: ConnectionScope, host: string, transport?: GitTransport): Promise<Connection | undefined>
  /** The deploy key and known hosts of an SSH git connection; call it only where a git command is about to run. */
  sshIdentity(scope: ConnectionScope, name: string): Promise<{ privateKey: string; knownHosts: string }>
  /** Stores (sealed) or, with null, removes the secret a git connection's host signs push webhooks with. */
  setWebhookSecret(scope: ConnectionScope, name: string, secret: string | null): Promise<Connection>
  /** The plain webhook secret of a connection, or null when it has none; call it only to check a delivery. */
  webhookSecret(scope: ConnectionScope, name: string): Promise<string | null>
}

interface ConnectionRow {
  pk: number
  kind: ConnectionKind
  name: string
  base_url: string
  email: string | null
  token_sealed: string
  webhook_secret_sealed: string | null
  known_hosts_sealed: string | null
  public_key: string | null
  created_at: string
  team_pk: number | null
}

/** Shorter secrets are guessable offline from one signed delivery. */
export const MIN_WEBHOOK_SECRET = 16

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/

function toConnection(row: ConnectionRow): Connection {
  return { id: row.pk, kind: row.kind, name: row.name, baseUrl: row.base_url, email: row.email, webhook: row.webhook_secret_sealed !== null, publicKey: row.public_key, createdAt: row.created_at }
}

/** An http(s) URL (or, for SSH git, `ssh://host[:port]`) without credentials, query or trailing slash: the form every lookup compares. */
export function normalizeBaseUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw.includes('://') ? raw : `https://${raw}`)
  } catch {
    throw new LecternError('validation_error', `"${raw}" is not a URL.`)
  }
  if (url.protocol === 'ssh:') return `ssh://${url.host.toLowerCase().replace(/:22$/, '')}`
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new LecternError('validation_error', `"${raw}" is not an http(s) URL.`)
  if (url.username || url.password) throw new LecternError('validation_error', 'Put the token in --token-stdin or --token-env, not in the URL.')
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '')
}

/** `host[:port]` of a base URL, lower-case, as repo-url.ts reports a repository's host (SSH's port 22 left out). */
export function hostOf(baseUrl: string): string {
  const url = new URL(baseUrl)
  const host = url.host.toLowerCase()
  return url.protocol === 'ssh:' ? host.replace(/:22$/, '') : host
}

const transportOf = (baseUrl: string): GitTransport => (baseUrl.startsWith('ssh://') ? 'ssh' : 'https')

/** The rows of one scope: the install's is team_pk NULL, which `=` never matches. */
function inScope(scope: ConnectionScope): { where: string; params: SqlValue[] } {
  return scope.teamPk === null ? { where: 'team_pk IS NULL', params: [] } : { where: 'team_pk = ?', params: [scope.teamPk] }
}

export function createConnectionsRepository(sql: Sql, secrets: SecretBox): ConnectionsRepository {
  const byName = (scope: ConnectionScope, name: string) => {
    const { where, params } = inScope(scope)
    return sql.get<ConnectionRow>(`SELECT * FROM connections WHERE ${where} AND name = ?`, [...params, name])
  }
  const list = async (scope: ConnectionScope, kind?: ConnectionKind) => {
    const { where, params } = inScope(scope)
    const rows = kind
      ? await sql.all<ConnectionRow>(`SELECT * FROM connections WHERE ${where} AND kind = ? ORDER BY name`, [...params, kind])
      : await sql.all<ConnectionRow>(`SELECT * FROM connections WHERE ${where} ORDER BY name`, params)
    return rows.map(toConnection)
  }

  return {
    async create(scope, input) {
      if (!NAME.test(input.name)) throw new LecternError('validation_error', 'A connection name is 1 to 63 letters, digits, ".", "_" or "-".')
      if (!CONNECTION_KINDS.includes(input.kind)) throw new LecternError('validation_error', `Unknown connection kind "${input.kind}".`)
      const token = input.token.trim()
      if (token === '') throw new LecternError('validation_error', 'The connection token is empty.')
      const baseUrl = normalizeBaseUrl(input.baseUrl)
      const taken = () => new LecternError('validation_error', `A connection named "${input.name}" already exists; remove it first.`)
      if (await byName(scope, input.name)) throw taken()
      try {
        const row = await sql.get<ConnectionRow>(
          'INSERT INTO connections (kind, name, base_url, email, token_sealed, known_hosts_sealed, public_key, created_at, team_pk) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *',
          [input.kind, input.name, baseUrl, input.email?.trim() || null, secrets.seal(token), input.knownHosts ? secrets.seal(input.knownHosts) : null, input.publicKey ?? null, nowIso(), scope.teamPk],
        )
        return toConnection(row!)
      } catch (err) {
        // Taken by another request between the check and the insert.
        throw isUniqueViolation(err) ? taken() : err
      }
    },
    list,
    async get(scope, name) {
      const found = await byName(scope, name)
      return found && toConnection(found)
    },
    async remove(scope, name) {
      const found = await byName(scope, name)
      if (!found) throw new LecternError('not_found', `No connection named "${name}".`)
      await sql.run('DELETE FROM connections WHERE pk = ?', [found.pk])
      return toConnection(found)
    },
    async token(scope, name) {
      const found = await byName(scope, name)
      if (!found) throw new LecternError('validation_error', `No connection named "${name}". Add one with \`lectern connections add\`.`)
      return secrets.open(found.token_sealed)
    },
    async forGitHost(scope, host, transport = 'https') {
      const lower = host.toLowerCase()
      const wanted = transport === 'ssh' ? lower.replace(/:22$/, '') : lower
      return (await list(scope, 'git')).find((c) => transportOf(c.baseUrl) === transport && hostOf(c.baseUrl) === wanted)
    },
    async sshIdentity(scope, name) {
      const found = await byName(scope, name)
      if (!found?.known_hosts_sealed) throw new LecternError('validation_error', `No SSH git connection named "${name}".`)
      return { privateKey: secrets.open(found.token_sealed), knownHosts: secrets.open(found.known_hosts_sealed) }
    },
    async setWebhookSecret(scope, name, secret) {
      const found = await byName(scope, name)
      if (!found) throw new LecternError('not_found', `No connection named "${name}".`)
      if (found.kind !== 'git') throw new LecternError('validation_error', `Connection "${name}" is a ${found.kind} connection; push webhooks come from git hosts.`)
      const value = secret
      if (value !== null && value.trim() !== value) throw new LecternError('validation_error', 'A webhook secret may not begin or end with spaces or line breaks: the git host would sign with them, or without them.')
      if (value !== null && value.length < MIN_WEBHOOK_SECRET) {
        throw new LecternError('validation_error', `A webhook secret is at least ${MIN_WEBHOOK_SECRET} characters; or have Lectern make one (\`lectern connections webhook <name> --generate\`, or New webhook secret in the dashboard).`)
      }
      await sql.run('UPDATE connections SET webhook_secret_sealed = ? WHERE pk = ?', [value === null ? null : secrets.seal(value), found.pk])
      return toConnection({ ...found, webhook_secret_sealed: value === null ? null : 'sealed' })
    },
    async webhookSecret(scope, name) {
      const found = await byName(scope, name)
      return found?.webhook_secret_sealed ? secrets.open(found.webhook_secret_sealed) : null
    },
  }
}
