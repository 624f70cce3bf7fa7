/**
 * Storing a connection, whoever asks (`lectern connections add`, the dashboard's Settings, a
 * teamspace's Connections): the base URL each kind needs, checked the same way for all. The token
 * is sealed by the store.
 */
import { LecternError } from './errors.js'
import type { Store } from './store/index.js'
import { NOTION_API_URL, type Connection, type ConnectionKind, type ConnectionScope } from './store/connections.js'

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
}

export function baseUrlOf(input: ConnectionInput): string {
  if (input.kind === 'confluence') {
    if (!input.site) throw new LecternError('validation_error', 'A Confluence connection needs its site URL (--site, or "site").')
    if (/\.atlassian\.net/i.test(input.site) && !input.email) throw new LecternError('validation_error', 'Confluence Cloud API tokens need the account email (--email, or "email").')
    return input.site
  }
  if (input.kind === 'git') {
    if (!input.host) throw new LecternError('validation_error', 'A git connection needs its host (--host, or "host").')
    return input.host.includes('://') ? input.host : `https://${input.host}`
  }
  return input.apiUrl ?? NOTION_API_URL
}

export function addConnection(store: Store, scope: ConnectionScope, input: ConnectionInput): Connection {
  return store.connections.create(scope, { kind: input.kind, name: input.name, baseUrl: baseUrlOf(input), email: input.email, token: input.token })
}
