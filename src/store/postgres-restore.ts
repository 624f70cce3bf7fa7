/**
 * Restoring a PostgreSQL store's dump (postgres-dump.ts) into the database at a URL, without
 * opening it as a store (which would migrate it first).
 *
 * Guarantees: nothing is changed while a replica of the install is live (the replicas table
 * says so by its heartbeats), nor in a database that holds tables unless asked to replace them.
 * The dump is replayed by `psql` in one transaction, committed only once pg_restore has written
 * all of it, after the old schema is dropped in that same transaction when replacing: a restore
 * that fails part way, on either side, leaves the database as it was. The
 * tools come from the host (Debian's postgresql-client) and run without a shell; the password
 * travels in their environment.
 */
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { promisify } from 'node:util'
import pg from 'pg'
import { databaseUnreachable, LecternError } from '../errors.js'
import { passwordsApart } from './postgres-dump.js'

export interface PostgresRestoreOptions {
  /** Replace what the database holds (every table of its public schema). */
  force: boolean
  /** A replica seen since this time (ISO) is live. */
  liveSince: string
  /** How the database is shown in messages: its URL without the password. */
  shownAs: string
}

export interface PostgresTarget {
  /** Tables in the public schema now. */
  tables: number
  /** The replicas of the install in it seen since `liveSince`. */
  liveReplicas: Array<{ host: string; pid: number }>
}

const run = promisify(execFile)

/** Why pg_restore cannot read the dump (its table of contents), or undefined when it can. */
export async function dumpProblem(dumpFile: string): Promise<string | undefined> {
  try {
    await run('pg_restore', ['--list', dumpFile], { maxBuffer: 64 * 1024 * 1024 })
    return undefined
  } catch (err) {
    const { code, stderr } = err as { code?: unknown; stderr?: unknown }
    if (code === 'ENOENT') throw toolsMissing()
    return `its dump is not one pg_restore reads (${typeof stderr === 'string' ? stderr.trim().split('\n')[0] : String(err)})`
  }
}

const toolsMissing = () =>
  new LecternError('internal_error', "pg_restore or psql was not found on the PATH: install PostgreSQL's client tools (Debian: postgresql-client) to restore a PostgreSQL store. Nothing was changed.")

/** What the database holds now: whether a restore may go ahead. */
export async function inspectTarget(url: string, liveSince: string): Promise<PostgresTarget> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 })
  await client.connect().catch((err: unknown) => Promise.reject(databaseUnreachable(err)))
  try {
    const { rows } = await client.query<{ tables: string; replicas: boolean }>(
      `SELECT count(*) AS tables, bool_or(tablename = 'replicas') AS replicas FROM pg_tables WHERE schemaname = 'public'`,
    )
    const liveReplicas = rows[0]!.replicas
      ? (await client.query<{ host: string; pid: string }>('SELECT host, pid FROM replicas WHERE seen_at >= $1 ORDER BY host, pid', [liveSince])).rows.map((r) => ({ host: r.host, pid: Number(r.pid) }))
      : []
    return { tables: Number(rows[0]!.tables), liveReplicas }
  } finally {
    await client.end()
  }
}

/** Refuses a restore into a database with live replicas, or holding tables without `force`. */
export function refuseTarget(target: PostgresTarget, options: PostgresRestoreOptions): void {
  if (target.liveReplicas.length > 0) {
    const replicas = target.liveReplicas.map((r) => `${r.host} (pid ${r.pid})`).join(', ')
    throw new LecternError('restore_refused', `${target.liveReplicas.length} replica${target.liveReplicas.length === 1 ? ' is' : 's are'} serving ${options.shownAs}: ${replicas}. Stop every replica, then restore. Nothing was changed.`)
  }
  if (target.tables > 0 && !options.force) {
    throw new LecternError('restore_refused', `${options.shownAs} is not empty (${target.tables} ${target.tables === 1 ? 'table' : 'tables'}): restore into an empty database, or pass --force to replace what it holds. Nothing was changed.`)
  }
}

/** Replays the dump into the database in one transaction; see the guarantees above. */
export async function restorePostgresDump(url: string, dumpFile: string, options: PostgresRestoreOptions): Promise<void> {
  const target = await inspectTarget(url, options.liveSince)
  refuseTarget(target, options)
  const connection = passwordsApart(url)
  const env = { ...process.env, ...connection.env }
  const reader = spawn('pg_restore', ['--no-owner', '--no-privileges', '--file=-', dumpFile], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const replay = spawn('psql', ['--no-psqlrc', '--quiet', '--set=ON_ERROR_STOP=1', `--dbname=${connection.url}`], { env, stdio: ['pipe', 'ignore', 'pipe'] })
  const errors = { pg_restore: '', psql: '' }
  reader.stderr.on('data', (chunk: Buffer) => (errors.pg_restore += chunk.toString()))
  replay.stderr.on('data', (chunk: Buffer) => (errors.psql += chunk.toString()))
  // psql ending early (an error) closes its input; what pg_restore still writes is not needed.
  replay.stdin.on('error', () => {})
  // The transaction is ours, not psql's --single-transaction, which commits whatever it read once
  // its input ends, also when pg_restore died part way: COMMIT is sent only after pg_restore
  // succeeded. The drop comes first: if anything after it fails, it is undone too.
  replay.stdin.write(`BEGIN;\n${target.tables > 0 ? 'DROP SCHEMA public CASCADE;\nCREATE SCHEMA public;\n' : ''}`)
  reader.stdout.pipe(replay.stdin, { end: false })
  const ended = (child: typeof reader | typeof replay) =>
    once(child, 'close').then(([code]) => code as number | null, (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? -2 : -1))
  const readCode = await ended(reader)
  // Without COMMIT the server rolls the transaction back when psql's connection goes.
  if (readCode === 0) replay.stdin.end('COMMIT;\n')
  else replay.kill('SIGKILL')
  const replayCode = await ended(replay)
  if (readCode === -2 || replayCode === -2) throw toolsMissing()
  if (readCode !== 0 || replayCode !== 0) {
    const said = (readCode !== 0 ? errors.pg_restore : errors.psql).trim().split('\n').slice(0, 3).join(' ')
    throw new LecternError('internal_error', `The restore into ${options.shownAs} failed and was rolled back: ${said || `pg_restore exited with ${readCode}, psql with ${replayCode}`}. Nothing was changed.`)
  }
}
