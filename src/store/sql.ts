/**
 * The one door repositories speak SQL through. It is asynchronous so that one set of repositories
 * runs on SQLite (better-sqlite3, in process) and on PostgreSQL (a pool of connections); its SQL is
 * the part both dialects share: `?` placeholders, RETURNING, ON CONFLICT, TRUE and FALSE.
 *
 * Transactions are scoped by async context: every statement issued inside `transaction(fn)`'s
 * callback (and whatever it awaits) runs in that transaction, so a helper given the store joins its
 * caller's transaction without being told. A statement from outside waits until the transaction
 * ends rather than slipping into it. So a transaction must not await work that another context
 * started and shares (a set being loaded, the catalogue being read): that work waits for it.
 */
/**
 * Rows come back as SQLite gives them, whichever the database: booleans as 1 and 0, 64-bit
 * integers and counts as numbers, binary columns as Buffers.
 */
export type SqlValue = string | number | bigint | Buffer | null

export interface Sql {
  /** Where the few statements that differ (a claim's row locks) need to know. */
  readonly dialect: 'sqlite' | 'postgres'
  all<R>(text: string, params?: readonly SqlValue[]): Promise<R[]>
  get<R>(text: string, params?: readonly SqlValue[]): Promise<R | undefined>
  /** A write: how many rows it changed. */
  run(text: string, params?: readonly SqlValue[]): Promise<{ changes: number }>
  /**
   * Runs `fn` in one transaction and returns its result; a throw rolls it all back. `write` takes
   * the write lock at the start, so it waits its turn instead of failing on a stale snapshot;
   * `read` sees one moment and holds no writer up. A call inside another transaction joins it as a
   * savepoint: its failure undoes only its own part.
   */
  transaction<T>(fn: () => Promise<T>, access?: 'write' | 'read'): Promise<T>
}

/** Whether a statement was refused by a unique index or a primary key, in either database. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505'
}
