/**
 * After a rollback to an older Lectern (the release's link moved back, an older package
 * installed), a database a newer version migrated is refused with `database_too_new`, naming the
 * migrations this version lacks and the two ways out, instead of knex's "migration directory is
 * corrupt". Nothing is changed in the database.
 */
import path from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { tmpDataDir } from '../helpers/tmp.js'

describe('a database migrated by a newer Lectern', () => {
  it('is refused by commands and by serve with database_too_new (exit 11), and left as it was', async () => {
    const dataDir = await tmpDataDir()
    expect((await runCli(['keys', 'create', '--name', 'ci', '--data-dir', dataDir])).exitCode).toBe(0)
    const file = path.join(dataDir, 'lectern.db')
    const db = new Database(file)
    db.prepare('INSERT INTO knex_migrations (name, batch, migration_time) VALUES (?, 99, ?)').run('9999_from_the_future', new Date().toISOString())
    const before = db.prepare('SELECT count(*) AS n FROM knex_migrations').get()
    db.close()

    const listed = await runCli(['keys', 'list', '--json', '--data-dir', dataDir])
    expect(listed.exitCode, listed.stderr).toBe(11)
    const body = JSON.parse(listed.stdout) as { error: string; message: string }
    expect(body.error).toBe('database_too_new')
    expect(body.message).toContain(`${file} was migrated by a newer Lectern (migrations 9999_from_the_future, which Lectern`)
    expect(body.message).toContain('restore the backup taken before the upgrade')
    const served = await runCli(['serve', '--port', '0', '--workers', '1', '--data-dir', dataDir])
    expect(served.exitCode, served.stderr).toBe(11)
    expect(served.stderr.replace(/\s+/g, ' ')).toContain('was migrated by a newer Lectern (migrations 9999_from_the_future')
    const after = new Database(file, { readonly: true })
    expect(after.prepare('SELECT count(*) AS n FROM knex_migrations').get()).toEqual(before)
    after.close()
  })
})
