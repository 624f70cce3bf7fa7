import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setImmediate as tick } from 'node:timers/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openConnection, type Db } from '../../src/store/db.js'
import { createSqliteSql } from '../../src/store/sqlite-sql.js'
import type { Sql } from '../../src/store/sql.js'

let dir: string
let db: Db
let sql: Sql

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-sql-'))
  db = openConnection(path.join(dir, 'test.db'))
  db.exec('CREATE TABLE notes (text TEXT NOT NULL UNIQUE)')
  sql = createSqliteSql(db)
})
afterEach(() => {
  db.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const texts = async () => (await sql.all<{ text: string }>('SELECT text FROM notes ORDER BY text')).map((r) => r.text)

describe('the SQLite Sql', () => {
  it('keeps a statement from another async context out of a transaction that is waiting on I/O', async () => {
    let inside!: () => void
    const reached = new Promise<void>((resolve) => (inside = resolve))
    const failing = sql.transaction(async () => {
      await sql.run('INSERT INTO notes (text) VALUES (?)', ['rolled back'])
      inside()
      await tick()
      await tick()
      throw new Error('the transaction fails after another context wrote')
    })
    await reached
    // Issued while the transaction is open: on one connection it would become part of it.
    const outside = sql.run('INSERT INTO notes (text) VALUES (?)', ['kept'])
    await expect(failing).rejects.toThrow(/fails after another context wrote/)
    await outside
    expect(await texts()).toEqual(['kept'])
  })

  it('runs a transaction inside another as a savepoint: its failure undoes only its own part', async () => {
    await sql.transaction(async () => {
      await sql.run('INSERT INTO notes (text) VALUES (?)', ['outer'])
      await expect(
        sql.transaction(async () => {
          await sql.run('INSERT INTO notes (text) VALUES (?)', ['inner'])
          throw new Error('inner fails')
        }),
      ).rejects.toThrow('inner fails')
      await sql.transaction(async () => void (await sql.run('INSERT INTO notes (text) VALUES (?)', ['inner, kept'])))
    })
    expect(await texts()).toEqual(['inner, kept', 'outer'])
  })

  it('runs transactions of different contexts one after the other, each whole', async () => {
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
    expect(await texts()).toEqual(['a', 'b', 'c'])
  })

  it('rejects with the driver error and leaves the connection usable', async () => {
    await sql.run('INSERT INTO notes (text) VALUES (?)', ['once'])
    await expect(sql.run('INSERT INTO notes (text) VALUES (?)', ['once'])).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' })
    await expect(sql.transaction(async () => sql.run('INSERT INTO notes (text) VALUES (?)', ['once']))).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' })
    expect(db.inTransaction).toBe(false)
    expect((await sql.run('UPDATE notes SET text = ? WHERE text = ?', ['twice', 'once'])).changes).toBe(1)
    expect(await sql.get('SELECT text FROM notes')).toEqual({ text: 'twice' })
  })

  it('runs what a transaction left running after it ended outside it, not in a later transaction', async () => {
    let leaked!: Promise<unknown>
    await sql.transaction(async () => {
      leaked = tick().then(() => sql.run('INSERT INTO notes (text) VALUES (?)', ['leaked']))
    })
    let release!: () => void
    const later = sql.transaction(async () => {
      await new Promise<void>((resolve) => (release = resolve))
      throw new Error('the later transaction fails')
    })
    await tick()
    release()
    await expect(later).rejects.toThrow('the later transaction fails')
    await leaked
    expect(await texts()).toEqual(['leaked'])
  })
})
