/**
 * The push webhook deliveries received (src/webhooks/), by the sender's delivery ID, so that a
 * delivery sent again, by an attacker who captured it or by the sender, is refused. Kept for
 * WEBHOOK_DELIVERY_DAYS; a replay older than that would only refresh what is already current.
 */
import { isUniqueViolation, type Sql } from './sql.js'

export const WEBHOOK_DELIVERY_DAYS = 30

export interface WebhookDeliveriesRepository {
  /** Records a delivery; false when it was received before. Forgets deliveries past their days. */
  claim(provider: string, deliveryId: string, now?: Date): Promise<boolean>
}

export function createWebhookDeliveriesRepository(sql: Sql): WebhookDeliveriesRepository {
  return {
    async claim(provider, deliveryId, now = new Date()) {
      await sql.run('DELETE FROM webhook_deliveries WHERE received_at < ?', [new Date(now.getTime() - WEBHOOK_DELIVERY_DAYS * 86_400_000).toISOString()])
      try {
        // A savepoint of its own: a refused insert must not abort (on PostgreSQL) a caller's transaction.
        await sql.transaction(() => sql.run('INSERT INTO webhook_deliveries (provider, delivery_id, received_at) VALUES (?, ?, ?)', [provider, deliveryId, now.toISOString()]))
        return true
      } catch (err) {
        if (isUniqueViolation(err)) return false
        throw err
      }
    },
  }
}
