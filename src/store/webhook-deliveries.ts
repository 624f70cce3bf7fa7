/**
 * The push webhook deliveries received (src/webhooks/), by the sender's delivery ID and by the
 * hash of the signed body (the ID is not signed), so that a delivery sent again, by an attacker
 * who captured it or by the sender, is refused. Kept for
 * WEBHOOK_DELIVERY_DAYS; a replay older than that would only refresh what is already current.
 */
import { isUniqueViolation, type Sql } from './sql.js'

export const WEBHOOK_DELIVERY_DAYS = 30

export interface WebhookDeliveriesRepository {
  /**
   * Records a delivery under each of its keys (its ID, its body's hash), all or none; false when
   * any was received before. Forgets deliveries past their days.
   */
  claim(provider: string, keys: string[], now?: Date): Promise<boolean>
  /** Forgets a claim whose work failed, so the sender's redelivery is acted on. */
  release(provider: string, keys: string[]): Promise<void>
}

export function createWebhookDeliveriesRepository(sql: Sql): WebhookDeliveriesRepository {
  return {
    async claim(provider, keys, now = new Date()) {
      await sql.run('DELETE FROM webhook_deliveries WHERE received_at < ?', [new Date(now.getTime() - WEBHOOK_DELIVERY_DAYS * 86_400_000).toISOString()])
      try {
        // A savepoint of its own: a refused insert undoes the keys before it, and must not abort (on PostgreSQL) a caller's transaction.
        await sql.transaction(async () => {
          for (const key of keys) await sql.run('INSERT INTO webhook_deliveries (provider, delivery_id, received_at) VALUES (?, ?, ?)', [provider, key, now.toISOString()])
        })
        return true
      } catch (err) {
        if (isUniqueViolation(err)) return false
        throw err
      }
    },
    async release(provider, keys) {
      for (const key of keys) await sql.run('DELETE FROM webhook_deliveries WHERE provider = ? AND delivery_id = ?', [provider, key])
    },
  }
}
