/**
 * Replaying a PostgreSQL dump (src/store/postgres-restore.ts) against a real PostgreSQL: a dump
 * that pg_restore gives up on part way, after it has written rows, changes nothing, into an empty
 * database or one it was to replace. (Archives are checksummed, so this is a dump damaged where
 * no checksum sees it: a disk error, pg_restore killed, out of memory.)
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { describe, expect, it, onTestFinished } from 'vitest'
import { dumpProblem, restorePostgresDump } from '../../src/store/postgres-restore.js'
import { createDatabase, freshDatabase, withDatabase } from '../helpers/stores.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

const serverDefer = suiteTeardown()

async function query<R extends object>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client(url)
  await client.connect()
  try {
    return (await client.query<R>(text)).rows
  } finally {
    await client.end()
  }
}

const tables = async (url: string) => (await query<{ name: string }>(url, "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).map((t) => t.name)

describe('replaying a PostgreSQL dump', () => {
  it('rolls back a dump that pg_restore gives up on part way, and leaves a database it was to replace as it was', async () => {
    const url = await freshDatabase(onTestFinished, serverDefer)
    const source = `lectern_dump_source_${process.pid}`
    await createDatabase(url, source)
    await query(withDatabase(url, source), 'CREATE TABLE early (n int); INSERT INTO early VALUES (1); CREATE TABLE big AS SELECT g AS n, md5(g::text) AS t FROM generate_series(1, 200000) g')
    const dir = await tmpDir('lectern-dump-')
    const dump = path.join(dir, 'source.pgdump')
    await promisify(execFile)('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, `--dbname=${withDatabase(url, source)}`])
    // Cut inside the big table's data: the table of contents still reads, the data does not.
    fs.truncateSync(dump, Math.floor(fs.statSync(dump).size * (2 / 3)))
    expect(await dumpProblem(dump)).toBeUndefined()

    const empty = `lectern_dump_target_${process.pid}`
    await createDatabase(url, empty)
    const options = { force: true, liveSince: new Date().toISOString(), shownAs: 'the target' }
    await expect(restorePostgresDump(withDatabase(url, empty), dump, options)).rejects.toMatchObject({ code: 'internal_error', message: expect.stringContaining('failed and was rolled back') })
    expect(await tables(withDatabase(url, empty))).toEqual([])

    const before = await tables(url)
    expect(before).toContain('libraries')
    await expect(restorePostgresDump(url, dump, options)).rejects.toMatchObject({ code: 'internal_error' })
    expect(await tables(url)).toEqual(before)
  })

  it('says the database cannot be reached, and changes nothing', async () => {
    const url = await freshDatabase(onTestFinished, serverDefer)
    const unreachable = url.replace(/:\d+\//, ':1/')
    await expect(restorePostgresDump(unreachable, '/nonexistent.pgdump', { force: false, liveSince: new Date().toISOString(), shownAs: 'the target' })).rejects.toMatchObject({ code: 'database_unreachable' })
  })
})
