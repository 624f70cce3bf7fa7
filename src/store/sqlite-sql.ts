/**
 * Sql on one better-sqlite3 connection. The statements themselves are synchronous and prepared
 * once, so a read outside a transaction answers in the same turn of the event loop. What the
 * asynchronous interface adds is a turn for the connection: a transaction holds it across its
 * awaits, and a statement from another async context waits for it, because on one connection it
 * would otherwise become part of somebody else's transaction.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Statement } from 'better-sqlite3'
import type { Db } from './db.js'
import type { Sql, SqlValue } from './sql.js'

interface Transaction {
  /** False once committed or rolled back: a promise it left running no longer belongs to it. */
  open: boolean
  savepoints: number
}

export interface SqliteSql extends Sql {
  /**
   * What a statement issued now from this async context reads: `committed` when no transaction
   * holds the connection, `own` inside this context's transaction (its uncommitted rows), `held`
   * while another context's does (a statement waits its turn).
   */
  readsNow(): 'committed' | 'own' | 'held'
}

export function createSqliteSql(db: Db): SqliteSql {
  const statements = new Map<string, Statement>()
  const scope = new AsyncLocalStorage<Transaction>()
  /** Settles when the transaction holding the connection (and every one queued before) ends. */
  let tail: Promise<void> = Promise.resolve()
  let waiting = 0

  const prepare = (text: string): Statement => {
    let statement = statements.get(text)
    if (!statement) statements.set(text, (statement = db.prepare(text)))
    return statement
  }

  const inTransaction = () => scope.getStore()?.open === true

  /** Waits for the connection, runs `fn` holding it, and lets the next waiter in. */
  async function withTurn<T>(fn: () => Promise<T> | T): Promise<T> {
    const before = tail
    let release!: () => void
    tail = new Promise((resolve) => (release = resolve))
    waiting++
    try {
      await before
      return await fn()
    } finally {
      waiting--
      release()
    }
  }

  const readsNow = () => (inTransaction() ? 'own' : waiting === 0 ? 'committed' : 'held')

  /** A statement runs at once unless another context's transaction holds the connection. */
  function statement<T>(run: () => T): Promise<T> {
    if (readsNow() !== 'held') {
      try {
        return Promise.resolve(run())
      } catch (err) {
        return Promise.reject(err)
      }
    }
    return withTurn(run)
  }

  async function savepoint<T>(tx: Transaction, fn: () => Promise<T>): Promise<T> {
    const name = `sp${++tx.savepoints}`
    db.exec(`SAVEPOINT ${name}`)
    try {
      const result = await fn()
      db.exec(`RELEASE ${name}`)
      return result
    } catch (err) {
      db.exec(`ROLLBACK TO ${name}`)
      db.exec(`RELEASE ${name}`)
      throw err
    }
  }

  return {
    dialect: 'sqlite',
    readsNow,
    all: <R>(text: string, params: readonly SqlValue[] = []) => statement(() => prepare(text).all(...params) as R[]),
    get: <R>(text: string, params: readonly SqlValue[] = []) => statement(() => prepare(text).get(...params) as R | undefined),
    run: (text, params = []) => statement(() => ({ changes: prepare(text).run(...params).changes })),
    transaction<T>(fn: () => Promise<T>, access: 'write' | 'read' = 'write'): Promise<T> {
      const current = scope.getStore()
      if (current?.open) return savepoint(current, fn)
      return withTurn(async () => {
        const tx: Transaction = { open: true, savepoints: 0 }
        // IMMEDIATE takes the write lock now, waiting (busy_timeout) for another process's
        // writer, instead of failing later when a read snapshot cannot be upgraded.
        db.exec(access === 'write' ? 'BEGIN IMMEDIATE' : 'BEGIN DEFERRED')
        try {
          const result = await scope.run(tx, fn)
          db.exec('COMMIT')
          return result
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK')
          throw err
        } finally {
          tx.open = false
        }
      })
    },
  }
}
