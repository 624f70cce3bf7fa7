/**
 * The salt under which a day's MCP users are hashed (src/store/usage.ts): random, one per UTC day,
 * in the database so that every serving process of `serve --workers` hashes a caller alike. It is
 * deleted by the first usage flush of the next day (flushes run every 5 s, src/runtime.ts) of
 * each process that has written counts, and at the server's start. The guarantee: within a flush
 * interval of a day's end its salt is gone from the database and from every process, so nobody,
 * the operator included, can tie that day's hashes back to an address by hashing every possible
 * one. During the day whoever can read the database could; and a caller hashes differently on
 * different days, so users are unique per day only, which is all the metrics report.
 */
import { randomBytes } from 'node:crypto'
import type { Sql } from './sql.js'

export class DailySalt {
  private current: { day: string; salt: Buffer } | undefined

  constructor(private readonly sql: Sql) {}

  /**
   * The day's salt; call within a write transaction (a day's first call stores it). Counts still
   * pending from a day that has ended get its salt if it is still stored, else a fresh one, which
   * the flush's forgetBefore deletes again in the same transaction.
   */
  async of(day: string): Promise<Buffer> {
    if (this.current?.day === day) return this.current.salt
    await this.sql.run('INSERT INTO usage_salt (day, salt) VALUES (?, ?) ON CONFLICT DO NOTHING', [day, randomBytes(32)])
    const { salt } = (await this.sql.get<{ salt: Buffer }>('SELECT salt FROM usage_salt WHERE day = ?', [day]))!
    if (!this.current || this.current.day < day) this.current = { day, salt }
    return salt
  }

  /** Deletes every salt of a day before `day`, from the database and from this process. */
  async forgetBefore(day: string): Promise<void> {
    // Only older days: a process whose clock is a little behind must not delete a newer day's salt.
    await this.sql.run('DELETE FROM usage_salt WHERE day < ?', [day])
    if (this.current && this.current.day < day) this.current = undefined
  }
}
