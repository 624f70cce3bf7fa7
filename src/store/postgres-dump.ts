/**
 * A PostgreSQL store's copy for a backup: `pg_dump` in custom format, taken in a snapshot that a
 * read transaction of the store exports and holds until the dump ends, so the facts read in that
 * transaction (backup-facts.ts) describe exactly what the dump holds, while every replica goes on
 * writing. pg_dump comes from the host (Debian's postgresql-client), of the server's major
 * version or newer; it is run without a shell, and the password travels in its environment,
 * never in its arguments, which any user of the host can list.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { LecternError } from '../errors.js'
import { readBackupFacts, type SnapshotFacts } from './backup-facts.js'
import type { Sql } from './sql.js'

const run = promisify(execFile)

/**
 * Tables whose rows are not the install's data: rate-limit counts of the current minute and the
 * replicas' heartbeats. Their definitions are dumped, their rows are not.
 */
const TRANSIENT_TABLES = ['rate_counts', 'replicas']

/** A percent-encoded part of a URL as its text; one that is not valid percent-encoding is taken as written. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}

/**
 * A URL as the PostgreSQL tools (libpq) read it, from one node-postgres reads: its passwords moved
 * into the environment (PGPASSWORD, PGSSLPASSWORD), where no other user of the host sees them, and
 * node-postgres's own TLS spellings, which libpq refuses, said its way: `ssl=true` and
 * `sslmode=no-verify` are both `sslmode=require` (encrypted, the certificate not checked).
 */
export function passwordsApart(url: string): { url: string; env: Record<string, string> } {
  const parsed = new URL(url)
  const env: Record<string, string> = {}
  if (parsed.password !== '') env.PGPASSWORD = decoded(parsed.password)
  parsed.password = ''
  for (const [param, variable] of [['password', 'PGPASSWORD'], ['sslpassword', 'PGSSLPASSWORD']] as const) {
    const value = parsed.searchParams.get(param)
    if (value === null) continue
    env[variable] = value
    parsed.searchParams.delete(param)
  }
  const ssl = parsed.searchParams.get('ssl')
  if (ssl !== null) {
    parsed.searchParams.delete('ssl')
    if (['true', '1', 'on'].includes(ssl.toLowerCase()) && !parsed.searchParams.has('sslmode')) parsed.searchParams.set('sslmode', 'require')
  }
  if (parsed.searchParams.get('sslmode') === 'no-verify') parsed.searchParams.set('sslmode', 'require')
  return { url: parsed.href, env }
}

/** Dumps the database at `url` into `file`; returns what the dump holds. */
export async function dumpPostgres(sql: Sql, url: string, file: string): Promise<SnapshotFacts> {
  return await sql.transaction(async () => {
    // The transaction waits, idle, for as long as the dump takes: the server must not end it.
    await sql.run('SET LOCAL idle_in_transaction_session_timeout = 0')
    const { snapshot } = (await sql.get<{ snapshot: string }>('SELECT pg_export_snapshot() AS snapshot'))!
    const facts = await readBackupFacts(sql)
    const connection = passwordsApart(url)
    const args = ['--format=custom', '--no-owner', '--no-privileges', `--snapshot=${snapshot}`, ...TRANSIENT_TABLES.map((table) => `--exclude-table-data=${table}`), `--file=${file}`, `--dbname=${connection.url}`]
    try {
      await run('pg_dump', args, { env: { ...process.env, ...connection.env }, maxBuffer: 16 * 1024 * 1024 })
    } catch (err) {
      throw dumpFailed(err)
    }
    return facts
  }, 'read')
}

function dumpFailed(err: unknown): LecternError {
  const { code, stderr } = err as { code?: unknown; stderr?: unknown }
  if (code === 'ENOENT') {
    return new LecternError('internal_error', 'pg_dump was not found on the PATH: install PostgreSQL\'s client tools (Debian: postgresql-client), of the server\'s major version or newer, to back up a PostgreSQL store.')
  }
  const said = typeof stderr === 'string' ? stderr.trim().split('\n').slice(0, 3).join(' ') : String(err)
  return new LecternError('internal_error', `pg_dump failed: ${said}`, {}, { cause: err })
}
