/**
 * The webhook secret of a git connection (on-premise): the shared secret its host signs push
 * deliveries with. Lectern can make one (256 random bits), which is shown once, to paste into the
 * host's webhook settings; it is stored sealed like the connection's token and never shown again.
 */
import { randomBytes } from 'node:crypto'
import { audit, type AuditContext } from '../audit/log.js'
import { INSTALL_CONNECTIONS, type Connection } from '../store/connections.js'
import type { Store } from '../store/index.js'

export interface WebhookSecretChange {
  connection: Connection
  /** The secret made, when Lectern made it: shown this once. */
  secret?: string
}

/** Sets a connection's webhook secret: the one given, or (none given) a new random one. */
export async function setWebhookSecret(store: Store, context: AuditContext, name: string, given?: string): Promise<WebhookSecretChange> {
  const secret = given ?? randomBytes(32).toString('base64url')
  const connection = await store.connections.setWebhookSecret(INSTALL_CONNECTIONS, name, secret)
  await audit(store, context, 'webhook.secret.changed', `connection ${name}`, { webhookSecret: given === undefined ? 'generated' : 'set' })
  return given === undefined ? { connection, secret } : { connection }
}

/** Removes a connection's webhook secret; `removed` is false when it had none (nothing changes, nothing is audited). */
export async function removeWebhookSecret(store: Store, context: AuditContext, name: string): Promise<{ connection: Connection; removed: boolean }> {
  const before = await store.connections.get(INSTALL_CONNECTIONS, name)
  if (before && before.kind === 'git' && !before.webhook) return { connection: before, removed: false }
  const connection = await store.connections.setWebhookSecret(INSTALL_CONNECTIONS, name, null)
  await audit(store, context, 'webhook.secret.changed', `connection ${name}`, { webhookSecret: 'removed' })
  return { connection, removed: true }
}
