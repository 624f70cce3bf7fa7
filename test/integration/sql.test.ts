/**
 * The contract of Sql (src/store/sql.ts), the door every repository speaks through, held by both
 * implementations: SQLite on one better-sqlite3 connection, PostgreSQL on a pool of a real server.
 */
import path from 'node:path'
import { setImmediate as tick } from 'node:timers/promises'
import pg from 'pg'
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openConnection } from '../../src/store/db.js'
import { connectPostgres, numberPlaceholders } from '../../src/store/postgres-sql.js'
import { isUniqueViolation, type Sql } from '../../src/store/sql.js'
import { createSqliteSql } from '../../src/store/sqlite-sql.js'
import { startPostgres } from '../helpers/postgres.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

const defer = suiteTeardown()

interface Dialect {
  name: string
  /** A Sql over an empty database holding `notes (text UNIQUE, flag BOOLEAN, n BIGINT)`. */
  fresh(): Promise<Sql>
}

let postgresUrl: string
let databases = 0
beforeAll(async () => {
  postgresUrl = (await startPostgres(defer)).url
})

const TABLE = 'CREATE TABLE notes (text TEXT NOT NULL UNIQUE, flag BOOLEAN NOT NULL DEFAULT FALSE, n BIGINT NOT NULL DEFAULT 0)'

const dialects: Dialect[] = [
  {
    name: 'SQLite',
    async fresh() {
      const db = openConnection(path.join(await tmpDir('lectern-sql-'), 'test.db'))
      db.exec(TABLE)
      return createSqliteSql(db)
    },
  },
  {
    name: 'PostgreSQL',
    async fresh() {
      // A database per test: nothing one test leaves can be seen by the next.
      const name = `sql_${++databases}`
      const admin = new pg.Client(postgresUrl)
      await admin.connect()
      await admin.query(`CREATE DATABASE ${name}`)
      await admin.end()
      const sql = connectPostgres(postgresUrl.replace(/\/postgres$/, `/${name}`))
      defer(() => sql.end())
      await sql.run(TABLE)
      return sql
    },
  },
]

describe.each(dialects)('Sql on $name', (dialect) => {
  let sql: Sql
  beforeEach(async () => {
    sql = await dialect.fresh()
  })
  const texts = async () => (await sql.all<{ text: string }>('SELECT text FROM notes ORDER BY text')).map((r) => r.text)
  const add = (text: string) => sql.run('INSERT INTO notes (text) VALUES (?)', [text])

  it('keeps a statement from another async context out of a transaction that is waiting on I/O', async () => {
    let inside!: () => void
    const reached = new Promise<void>((resolve) => (inside = resolve))
    const failing = sql.transaction(async () => {
      await add('rolled back')
      inside()
      await tick()
      await tick()
      throw new Error('the transaction fails after another context wrote')
    })
    await reached
    // Issued while the transaction is open: on SQLite's one connection it would become part of it.
    const outside = add('kept')
    await expect(failing).rejects.toThrow(/fails after another context wrote/)
    await outside
    expect(await texts()).toEqual(['kept'])
  })

  it('runs a transaction inside another as a savepoint: its failure undoes only its own part', async () => {
    await sql.transaction(async () => {
      await add('outer')
      await expect(
        sql.transaction(async () => {
          await add('inner')
          throw new Error('inner fails')
        }),
      ).rejects.toThrow('inner fails')
      await sql.transaction(async () => void (await add('inner, kept')))
    })
    expect(await texts()).toEqual(['inner, kept', 'outer'])
  })

  it('refuses a duplicate as a unique violation in a transaction, leaving the transaction usable through a savepoint', async () => {
    await add('once')
    await expect(add('once')).rejects.toSatisfy(isUniqueViolation)
    await sql.transaction(async () => {
      await expect(sql.transaction(() => add('once'))).rejects.toSatisfy(isUniqueViolation)
      await add('after')
    })
    expect(await texts()).toEqual(['after', 'once'])
    expect((await sql.run('UPDATE notes SET text = ? WHERE text = ?', ['twice', 'once'])).changes).toBe(1)
  })

  it('runs what a transaction left running after it ended outside it, not in a later transaction', async () => {
    let leaked!: Promise<unknown>
    await sql.transaction(async () => {
      leaked = tick().then(() => add('leaked'))
    })
    let release!: () => void
    let begun!: () => void
    const begins = new Promise<void>((resolve) => (begun = resolve))
    const later = sql.transaction(async () => {
      const released = new Promise<void>((resolve) => (release = resolve))
      begun()
      await released
      throw new Error('the later transaction fails')
    })
    await begins
    release()
    await expect(later).rejects.toThrow('the later transaction fails')
    await leaked
    expect(await texts()).toEqual(['leaked'])
  })

  it("gives rows as SQLite does: booleans as 1 and 0, 64-bit integers and counts as numbers, and leaves '?' in a literal alone", async () => {
    await sql.run('INSERT INTO notes (text, flag, n) VALUES (?, TRUE, ?), (?, ?, ?)', ['a', 2 ** 40, 'b', 0, 7])
    expect(await sql.all('SELECT text, flag, n FROM notes ORDER BY text')).toEqual([
      { text: 'a', flag: 1, n: 2 ** 40 },
      { text: 'b', flag: 0, n: 7 },
    ])
    expect(await sql.get('SELECT count(*) AS n, sum(n) AS total FROM notes WHERE flag = ?', [1])).toEqual({ n: 1, total: 2 ** 40 })
    expect(await sql.get(`SELECT '?' AS mark, text AS "asked?" FROM notes WHERE text = ?`, ['b'])).toEqual({ mark: '?', 'asked?': 'b' })
    expect(await sql.get('SELECT text FROM notes WHERE text = ?', ['none'])).toBeUndefined()
  })
})

describe('Sql on SQLite', () => {
  it('runs transactions of different contexts one after the other on its one connection', async () => {
    const sql = await dialects[0].fresh()
    const order: string[] = []
    const one = (name: string) =>
      sql.transaction(async () => {
        order.push(`${name} begins`)
        await sql.run('INSERT INTO notes (text) VALUES (?)', [name])
        await tick()
        order.push(`${name} ends`)
      })
    await Promise.all([one('a'), one('b'), one('c')])
    expect(order).toEqual(['a begins', 'a ends', 'b begins', 'b ends', 'c begins', 'c ends'])
  })
})

describe('placeholders for PostgreSQL', () => {
  it('numbers each ? outside string literals, quoted names and comments', () => {
    expect(numberPlaceholders(`SELECT '?', "a?" FROM t WHERE x = ? AND y IN (?, ?) -- and ?\nAND z = 'it''s ?' AND w = ?`)).toBe(
      `SELECT '?', "a?" FROM t WHERE x = $1 AND y IN ($2, $3) -- and ?\nAND z = 'it''s ?' AND w = $4`,
    )
  })
})

describe('Sql on PostgreSQL', () => {
  it('fails a transaction one of whose statements failed, even when its error was caught inside: PostgreSQL has rolled it all back', async () => {
    const sql = await dialects[1].fresh()
    await sql.run("INSERT INTO notes (text) VALUES ('taken')")
    const attempt = sql.transaction(async () => {
      await sql.run("INSERT INTO notes (text) VALUES ('lost')")
      // Caught without a savepoint: on PostgreSQL the transaction is aborted from here on.
      await sql.run("INSERT INTO notes (text) VALUES ('taken')").catch(() => undefined)
    })
    await expect(attempt).rejects.toThrow(/rolled back: a statement in it failed/)
    expect((await sql.all<{ text: string }>('SELECT text FROM notes ORDER BY text')).map((r) => r.text)).toEqual(['taken'])
  })
})

