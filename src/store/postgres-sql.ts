/**
 * Sql on a pool of PostgreSQL connections (`pg`). The repositories' SQL is written with `?`
 * placeholders, as SQLite takes them; they become `$1, $2...` here. Rows come back as SQLite gives
 * them (src/store/sql.ts): 64-bit integers and numerics as numbers, booleans as 1 and 0, so a
 * repository reads one shape whichever database is under it.
 *
 * A transaction holds one connection of the pool for its whole length; every statement of its
 * async context goes to that connection, and a transaction inside it is a savepoint.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash } from 'node:crypto'
import pg from 'pg'
import { databaseUnreachable } from '../errors.js'
import type { Sql, SqlValue } from './sql.js'

const OID = { bool: 16, int8: 20, numeric: 1700 } as const

/** Per pool, not pg's global registry: another user of `pg` in the process keeps its own parsing. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === OID.int8 || oid === OID.numeric) return (value: string) => Number(value)
    if (oid === OID.bool) return (value: string) => (value === 't' ? 1 : 0)
    return pg.types.getTypeParser(oid, format)
  },
}

/**
 * `?` placeholders as `$1, $2...`, leaving string literals, quoted identifiers and comments alone.
 * The repositories' texts are constants, so each is converted once.
 */
export function numberPlaceholders(text: string): string {
  let out = ''
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === "'" || c === '"') {
      const end = closingQuote(text, i, c)
      out += text.slice(i, end + 1)
      i = end
    } else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i)
      const stop = end < 0 ? text.length - 1 : end
      out += text.slice(i, stop + 1)
      i = stop
    } else if (c === '?') out += `$${++n}`
    else out += c
  }
  return out
}

/** Where a quoted text that starts at `start` ends; a doubled quote inside is an escaped one. */
function closingQuote(text: string, start: number, quote: string): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] !== quote) continue
    if (text[i + 1] === quote) i++
    else return i
  }
  throw new Error(`unterminated ${quote} in SQL: ${text.slice(start, start + 40)}`)
}

interface Transaction {
  id: number
  client: pg.PoolClient
  open: boolean
  access: 'write' | 'read'
  savepoints: number
  /** Whether a statement of it wrote, so its commit may have moved the catalogue. */
  wrote: boolean
}

/**
 * The key of the advisory lock every write transaction takes first, on every replica: write
 * transactions follow one another, as SQLite's BEGIN IMMEDIATE makes them, so a check and the
 * write it allows cannot be split by another replica's write. ("LECT" in ASCII.)
 */
export const WRITE_LOCK_KEY = 0x4c454354

/**
 * The first key of the advisory locks of once-only work (`exclusively`), the second being the
 * task's: the two-key form, which never conflicts with WRITE_LOCK_KEY's one-key form.
 */
const ONCE_LOCK_CLASS = 0x4c454333

/** A task's name as the second key of its lock. */
const taskKey = (task: string): number => createHash('sha256').update(task).digest().readInt32BE(0)

const WRITE_STATEMENT = /^\s*(INSERT|UPDATE|DELETE|WITH|CREATE|ALTER|DROP)\b/i

/**
 * SQLSTATE codes and classes, and socket errors, of a database that cannot be reached now: class
 * 08 (connection exception), 57P01-57P03 (the server shutting down, crashed, or not accepting
 * connections yet). A connection cut mid-query has no code, only pg's message. Only errors of this
 * pool's statements are read this way: a client's own socket error elsewhere is not the database's.
 */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', '57P01', '57P02', '57P03'])
const UNREACHABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/i

function unreachableAsSuch(err: unknown): unknown {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown }
  const unreachable = (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) || (typeof message === 'string' && UNREACHABLE_MESSAGES.test(message))
  return unreachable ? databaseUnreachable(err) : err
}

/** The statement's result, or its failure with a lost database said as `database_unreachable` (503, retried). */
const said = <T>(work: Promise<T>): Promise<T> => work.catch((err: unknown) => Promise.reject(unreachableAsSuch(err)))

export interface PostgresSqlOptions {
  /** Runs after a write commits (a statement outside a transaction, or a write transaction that wrote), before the caller goes on. */
  afterWrite?: () => Promise<void>
}

export interface PostgresSql extends Sql {
  /** The write transaction of the calling async context (a number no other has), else undefined. */
  ownWriteTransaction(): number | undefined
  /**
   * Runs `fn` unless another connection (another replica) runs the task now: an advisory lock held
   * by a connection of its own for `fn`'s length, which the server lets go of if that connection
   * or its process dies, so another replica takes the task over at its next turn.
   */
  exclusively<T>(task: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }>
  /** Ends the pool's connections. */
  end(): Promise<void>
}

export function createPostgresSql(pool: pg.Pool, options: PostgresSqlOptions = {}): PostgresSql {
  const scope = new AsyncLocalStorage<Transaction>()
  const converted = new Map<string, { text: string; writes: boolean }>()
  let transactions = 0
  const statementOf = (text: string) => {
    let statement = converted.get(text)
    if (statement === undefined) converted.set(text, (statement = { text: numberPlaceholders(text), writes: WRITE_STATEMENT.test(text) }))
    return statement
  }
  /** The transaction's connection in its own context, else any of the pool's. */
  const query = async <R extends object>(text: string, params: readonly SqlValue[]) => {
    const tx = scope.getStore()
    const statement = statementOf(text)
    if (tx?.open) {
      tx.wrote ||= statement.writes
      return tx.client.query<R>({ text: statement.text, values: params as unknown[] })
    }
    const result = await pool.query<R>({ text: statement.text, values: params as unknown[] })
    if (statement.writes) await options.afterWrite?.()
    return result
  }

  async function savepoint<T>(tx: Transaction, fn: () => Promise<T>): Promise<T> {
    const name = `sp${++tx.savepoints}`
    await tx.client.query(`SAVEPOINT ${name}`)
    try {
      const result = await fn()
      await tx.client.query(`RELEASE SAVEPOINT ${name}`)
      return result
    } catch (err) {
      await tx.client.query(`ROLLBACK TO SAVEPOINT ${name}`)
      throw err
    }
  }

  async function transaction<T>(fn: () => Promise<T>, access: 'write' | 'read'): Promise<T> {
    const current = scope.getStore()
    if (current?.open) return savepoint(current, fn)
    const client = await pool.connect()
    const tx: Transaction = { id: ++transactions, client, open: true, access, savepoints: 0, wrote: false }
    let broken: Error | undefined
    // The pool stops listening to a client it has handed out: a connection the server ends
    // mid-transaction (a restart, a failover) would otherwise be an unheard error that ends the process.
    const lost = (err: Error) => void (broken ??= err)
    client.on('error', lost)
    let committed = false
    try {
      if (access === 'read') {
        // A read sees one snapshot, as SQLite's read transaction does, and waits for no writer.
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
      } else {
        await client.query('BEGIN')
        await client.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK_KEY])
      }
      const result = await scope.run(tx, fn)
      // A statement that failed inside `fn`, its error caught there, leaves the transaction
      // aborted: COMMIT then rolls it back without an error, which must not pass for success.
      if ((await client.query('COMMIT')).command === 'ROLLBACK') throw new Error('the transaction was rolled back: a statement in it failed and its error was caught')
      committed = true
      return result
    } catch (err) {
      try {
        await client.query('ROLLBACK')
      } catch (rollbackErr) {
        // The connection is gone or unusable: the pool must not hand it out again.
        broken = rollbackErr as Error
      }
      throw err
    } finally {
      tx.open = false
      client.off('error', lost)
      client.release(broken)
      if (committed && tx.wrote) await options.afterWrite?.()
    }
  }

  return {
    dialect: 'postgres',
    all: async <R>(text: string, params: readonly SqlValue[] = []) => (await said(query<R & object>(text, params))).rows as R[],
    get: async <R>(text: string, params: readonly SqlValue[] = []) => (await said(query<R & object>(text, params))).rows[0] as R | undefined,
    run: async (text, params = []) => ({ changes: (await said(query(text, params))).rowCount ?? 0 }),
    transaction: <T>(fn: () => Promise<T>, access: 'write' | 'read' = 'write'): Promise<T> => said(transaction(fn, access)),
    ownWriteTransaction() {
      const tx = scope.getStore()
      return tx?.open && tx.access === 'write' ? tx.id : undefined
    },
    exclusively: (task, fn) => said(exclusively(task, fn)),
    end: () => pool.end(),
  }

  async function exclusively<T>(task: string, fn: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false }> {
    const client = await pool.connect()
    let broken: Error | undefined
    const lost = (err: Error) => void (broken ??= err)
    client.on('error', lost)
    try {
      const { rows } = await client.query<{ held: number }>('SELECT pg_try_advisory_lock($1, $2) AS held', [ONCE_LOCK_CLASS, taskKey(task)])
      if (!rows[0]!.held) return { ran: false }
      try {
        return { ran: true, value: await fn() }
      } finally {
        // A connection that cannot unlock must not go back to the pool still holding the lock.
        await client.query('SELECT pg_advisory_unlock($1, $2)', [ONCE_LOCK_CLASS, taskKey(task)]).catch((err: Error) => (broken = err))
      }
    } finally {
      client.off('error', lost)
      client.release(broken)
    }
  }
}

export function connectPostgres(url: string, options: PostgresSqlOptions & { max?: number } = {}): PostgresSql {
  // A host that does not answer (no refusal, a partition) fails a request in 5 s instead of never.
  // A replica that stalls inside a transaction (it holds the write lock every replica waits for)
  // has it ended by the server after a minute.
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, types, connectionTimeoutMillis: 5000, keepAlive: true, idle_in_transaction_session_timeout: 60_000 })
  // An idle connection the server ends (a restart, a failover) is dropped by the pool, and the
  // next query opens another; unheard, its error event would end the process.
  pool.on('error', () => {})
  return createPostgresSql(pool, options)
}
