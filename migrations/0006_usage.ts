import type { Knex } from 'knex'

/**
 * Requests per library, per UTC day, per client kind (X-Context7-Source: mcp-server, cli, ...)
 * and per transport (rest-txt, rest-json, mcp-http, mcp-stdio). Read by the metrics endpoint.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE usage_daily (
    day TEXT NOT NULL,
    library_pk INTEGER NOT NULL REFERENCES libraries(pk) ON DELETE CASCADE,
    client TEXT NOT NULL,
    transport TEXT NOT NULL,
    requests INTEGER NOT NULL,
    PRIMARY KEY (day, library_pk, client, transport)
  ) WITHOUT ROWID`)
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
