import type { Knex } from 'knex'

/**
 * Push webhooks (src/webhooks/): each git connection may hold the secret its host signs deliveries
 * with, sealed like its token; the deliveries received, by the sender's delivery ID, so a replay
 * is refused; and a mark on a running job that a push arrived after it began, so the job is
 * queued again when it ends instead of the push being lost. The same module in both dialects.
 */
export async function up(knex: Knex): Promise<void> {
  const pg = knex.client.config.client === 'pg'
  await knex.raw('ALTER TABLE connections ADD COLUMN webhook_secret_sealed TEXT')
  await knex.raw(`CREATE TABLE webhook_deliveries (
    provider TEXT NOT NULL,
    delivery_id TEXT NOT NULL,
    received_at TEXT NOT NULL,
    PRIMARY KEY (provider, delivery_id)
  )`)
  await knex.raw('CREATE INDEX webhook_deliveries_received ON webhook_deliveries (received_at)')
  await knex.raw(`ALTER TABLE jobs ADD COLUMN run_again ${pg ? 'BOOLEAN NOT NULL DEFAULT FALSE' : 'INTEGER NOT NULL DEFAULT 0'}`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
