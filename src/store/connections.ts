/**
 * Connections: the credentials Lectern holds for Confluence sites, Notion workspaces and private
 * git hosts, so a source spec names a connection instead of carrying a token. The token is sealed
 * (AES-GCM) on the way in and opened only by `token()`, which jobs call when they fetch; nothing
 * that lists or describes a connection ever returns it.
 */
import { LecternError } from '../errors.js'
import type { SecretBox } from '../secrets/cipher.js'
import type { Db } from './db.js'
import { nowIso } from './db.js'

export const CONNECTION_KINDS = ['confluence', 'notion', 'git'] as const
export type ConnectionKind = (typeof CONNECTION_KINDS)[number]

export const NOTION_API_URL = 'https://api.notion.com'

export interface Connection {
  id: number
  kind: ConnectionKind
  name: string
  /** Confluence: the site URL; Notion: the API base URL; git: `https://<host>`. No trailing slash. */
  baseUrl: string
  /** Confluence Cloud signs in with email + API token; absent means a bearer token. */
  email: string | null
  createdAt: string
}

export interface NewConnection {
  kind: ConnectionKind
  name: string
  baseUrl: string
  email?: string
  token: string
}

export interface ConnectionsRepository {
  create(input: NewConnection): Connection
  list(kind?: ConnectionKind): Connection[]
  get(name: string): Connection | undefined
  remove(name: string): Connection
  /** The plain token of a connection; call it only where a request is about to be sent. */
  token(name: string): string
  /** The git connection for a host (`gitlab.example.com`, with a port when not the default). */
  forGitHost(host: string): Connection | undefined
}

interface ConnectionRow {
  pk: number
  kind: ConnectionKind
  name: string
  base_url: string
  email: string | null
  token_sealed: string
  created_at: string
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/

function toConnection(row: ConnectionRow): Connection {
  return { id: row.pk, kind: row.kind, name: row.name, baseUrl: row.base_url, email: row.email, createdAt: row.created_at }
}

/** An http(s) URL without credentials, query or trailing slash: the form every lookup compares. */
export function normalizeBaseUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw.includes('://') ? raw : `https://${raw}`)
  } catch {
    throw new LecternError('validation_error', `"${raw}" is not a URL.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new LecternError('validation_error', `"${raw}" is not an http(s) URL.`)
  if (url.username || url.password) throw new LecternError('validation_error', 'Put the token in --token-stdin or --token-env, not in the URL.')
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '')
}

/** `host[:port]` of a base URL, lower-case, as repo-url.ts reports a repository's host. */
export function hostOf(baseUrl: string): string {
  return new URL(baseUrl).host.toLowerCase()
}

export function createConnectionsRepository(db: Db, secrets: SecretBox): ConnectionsRepository {
  const insert = db.prepare('INSERT INTO connections (kind, name, base_url, email, token_sealed, created_at) VALUES (?, ?, ?, ?, ?, ?)')
  const byPk = db.prepare<[number], ConnectionRow>('SELECT * FROM connections WHERE pk = ?')
  const byName = db.prepare<[string], ConnectionRow>('SELECT * FROM connections WHERE name = ?')
  const all = db.prepare<[], ConnectionRow>('SELECT * FROM connections ORDER BY name')
  const ofKind = db.prepare<[string], ConnectionRow>('SELECT * FROM connections WHERE kind = ? ORDER BY name')
  const deleteByPk = db.prepare('DELETE FROM connections WHERE pk = ?')

  const row = (name: string): ConnectionRow => {
    const found = byName.get(name)
    if (!found) throw new LecternError('validation_error', `No connection named "${name}". Add one with \`lectern connections add\`.`)
    return found
  }

  return {
    create(input) {
      if (!NAME.test(input.name)) throw new LecternError('validation_error', 'A connection name is 1 to 63 letters, digits, ".", "_" or "-".')
      if (!CONNECTION_KINDS.includes(input.kind)) throw new LecternError('validation_error', `Unknown connection kind "${input.kind}".`)
      const token = input.token.trim()
      if (token === '') throw new LecternError('validation_error', 'The connection token is empty.')
      if (byName.get(input.name)) throw new LecternError('validation_error', `A connection named "${input.name}" already exists; remove it first.`)
      const baseUrl = normalizeBaseUrl(input.baseUrl)
      const { lastInsertRowid } = insert.run(input.kind, input.name, baseUrl, input.email?.trim() || null, secrets.seal(token), nowIso())
      return toConnection(byPk.get(Number(lastInsertRowid))!)
    },
    list: (kind) => (kind ? ofKind.all(kind) : all.all()).map(toConnection),
    get(name) {
      const found = byName.get(name)
      return found && toConnection(found)
    },
    remove(name) {
      const found = byName.get(name)
      if (!found) throw new LecternError('not_found', `No connection named "${name}".`)
      deleteByPk.run(found.pk)
      return toConnection(found)
    },
    token: (name) => secrets.open(row(name).token_sealed),
    forGitHost(host) {
      const wanted = host.toLowerCase()
      return ofKind.all('git').map(toConnection).find((c) => hostOf(c.baseUrl) === wanted)
    },
  }
}
