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
import type { Db } from './db.js'

export class DailySalt {
  private current: { day: string; salt: Buffer } | undefined
  private readonly forgetOlder
  private readonly insert
  private readonly select

  constructor(db: Db) {
    // Only older days: a process whose clock is a little behind must not delete a newer day's salt.
    this.forgetOlder = db.prepare('DELETE FROM usage_salt WHERE day < ?')
    this.insert = db.prepare('INSERT OR IGNORE INTO usage_salt (day, salt) VALUES (?, ?)')
    this.select = db.prepare<[string], { salt: Buffer }>('SELECT salt FROM usage_salt WHERE day = ?')
  }

  /**
   * The day's salt; call within a write transaction (a day's first call stores it). Counts still
   * pending from a day that has ended get its salt if it is still stored, else a fresh one, which
   * the flush's forgetBefore deletes again in the same transaction.
   */
  of(day: string): Buffer {
    if (this.current?.day === day) return this.current.salt
    this.insert.run(day, randomBytes(32))
    const { salt } = this.select.get(day)!
    if (!this.current || this.current.day < day) this.current = { day, salt }
    return salt
  }

  /** Deletes every salt of a day before `day`, from the database and from this process. */
  forgetBefore(day: string): void {
    this.forgetOlder.run(day)
    if (this.current && this.current.day < day) this.current = undefined
  }
}
