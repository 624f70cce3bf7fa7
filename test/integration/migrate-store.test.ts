/**
 * `lectern migrate-store` through the real binary: an install on SQLite (the evaluation's real
 * docs corpora, an uploaded spec, a key) copied into a real PostgreSQL answers every question the
 * same, byte for byte, from a replica; every refusal changes nothing; a copy that fails part way
 * leaves the target without rows, and a later attempt into it succeeds.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { describe, expect, it, vi } from 'vitest'
import { exitCodeOf } from '../../cli/run.js'
import { buildCorpusRepo, CORPORA } from '../../bench/eval/corpora.js'
import { readQuestions } from '../../src/eval/questions.js'
import { runCli } from '../helpers/cli.js'
import { gitRedirectEnv } from '../helpers/git.js'
import { PETSHOP_YAML } from '../helpers/openapi-fixtures.js'
import { startPostgres } from '../helpers/postgres.js'
import { freePort, startServer } from '../helpers/server.js'
import { createDatabase, withDatabase } from '../helpers/stores.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

// Several CLI processes and servers, each opening a store, on a loaded two-core machine.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 })

const defer = suiteTeardown()

/** Rows in the target's tables (knex's own and the catalogue version left out). */
async function rowsIn(url: string): Promise<number> {
  const client = new pg.Client(url)
  await client.connect()
  try {
    const tables = (await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'knex_%' AND tablename <> 'catalog_version'")).rows
    let rows = 0
    for (const { name } of tables) rows += Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${name}`)).rows[0]!.n)
    return rows
  } finally {
    await client.end()
  }
}

const keyOf = async (dir: string) => (await fs.readFile(path.join(dir, 'secret.key'))).toString('hex')

describe('lectern migrate-store', () => {
  it('copies an install on SQLite into PostgreSQL, where every library answers as before, byte for byte', async () => {
    const reposRoot = await tmpDir('lectern-corpora-')
    for (const corpus of CORPORA) await buildCorpusRepo(corpus, reposRoot)
    const gitEnv = gitRedirectEnv(reposRoot)
    const dir = await tmpDataDir()
    for (const corpus of CORPORA) {
      const added = await runCli(['add', `https://github.com/acme/${corpus.name}`, '--wait', '--data-dir', dir], gitEnv)
      expect(added.exitCode, added.stderr).toBe(0)
    }
    const spec = path.join(dir, 'petshop.yaml')
    await fs.writeFile(spec, PETSHOP_YAML)
    expect((await runCli(['add', 'openapi', spec, '--title', 'Pet Shop', '--wait', '--data-dir', dir])).exitCode).toBe(0)
    const apiKey = (await runCli(['keys', 'create', '--name', 'ci', '--data-dir', dir])).stdout.trim()
    const questions = (await readQuestions(path.resolve('bench/eval/questions.json'))).map((q) => ({ libraryId: `/acme/${q.library}`, query: q.question }))
    questions.push({ libraryId: '/docs/pet-shop', query: 'list pets' })
    const answersOf = async (url: string) => {
      const answers: string[] = []
      for (const { libraryId, query } of questions) {
        for (const type of ['txt', 'json']) {
          const res = await fetch(`${url}/api/v2/context?${new URLSearchParams({ libraryId, query, type })}`, { headers: { authorization: `Bearer ${apiKey}` } })
          answers.push(`${res.status} ${await res.text()}`)
        }
      }
      for (const libraryName of ['fastify', 'pino', 'undici', 'pet shop']) {
        const res = await fetch(`${url}/api/v2/libs/search?${new URLSearchParams({ libraryName, query: 'hooks' })}`, { headers: { authorization: `Bearer ${apiKey}` } })
        answers.push(`${res.status} ${await res.text()}`)
      }
      return answers
    }
    const server = await startServer(dir, gitEnv)
    const before = await answersOf(server.url)
    expect(before.filter((a) => a.startsWith('200 ')).length).toBe(before.length)

    const postgres = await startPostgres(defer)
    await createDatabase(postgres.url, 'moved')
    const target = withDatabase(postgres.url, 'moved')
    const key = await keyOf(dir)
    const migrate = (env: Record<string, string>, ...args: string[]) => runCli(['migrate-store', '--to', target, '--data-dir', dir, ...args], env)

    // Refused, changing nothing: a server holding the directory; no key, another key; not a PostgreSQL URL; no database there.
    const held = await migrate({ LECTERN_SECRET_KEY: key })
    expect(held.exitCode).toBe(exitCodeOf('data_dir_locked'))
    expect(held.stderr).toContain(`is in use by Lectern process ${server.process.pid}`)
    server.process.kill('SIGTERM')
    await server.process.catch(() => {})
    const noKey = await migrate({})
    expect(noKey.exitCode).toBe(exitCodeOf('validation_error'))
    expect(noKey.stderr).toContain(`LECTERN_SECRET_KEY=$(od -An -vtx1 ${path.join(dir, 'secret.key')} | tr -d ' \\n')`)
    const otherKey = await migrate({ LECTERN_SECRET_KEY: 'b'.repeat(64) })
    expect(otherKey.exitCode).toBe(exitCodeOf('secret_key_mismatch'))
    expect(otherKey.stderr).toContain(`LECTERN_SECRET_KEY is not the key of ${dir} (its secret.key)`)
    const notPostgres = await runCli(['migrate-store', '--to', 'mysql://db/lectern', '--data-dir', dir], { LECTERN_SECRET_KEY: key })
    expect(notPostgres.exitCode).toBe(exitCodeOf('validation_error'))
    const port = await freePort()
    const nowhere = await runCli(['migrate-store', '--to', `postgres://lectern:hunter2@127.0.0.1:${port}/lectern`, '--data-dir', dir], { LECTERN_SECRET_KEY: key })
    expect(nowhere.exitCode).toBe(exitCodeOf('database_unreachable'))
    expect(nowhere.stderr).toContain(`Cannot reach PostgreSQL at postgres://lectern:***@127.0.0.1:${port}/lectern: connect ECONNREFUSED`)
    expect(nowhere.stderr).toContain('Nothing was changed.')
    expect(nowhere.stderr).not.toContain('hunter2')
    const noHost = await runCli(['migrate-store', '--to', 'postgres://', '--data-dir', dir], { LECTERN_SECRET_KEY: key })
    expect(noHost.exitCode).toBe(exitCodeOf('validation_error'))
    for (const refused of [held, noKey, otherKey, notPostgres, nowhere, noHost]) expect(refused.stdout + refused.stderr).not.toContain(key)
    expect(await rowsIn(target)).toBe(0)

    // DATABASE_URL names the target when --to is not given, as the replicas will be told; the password goes in the URL.
    const moved = await runCli(['migrate-store', '--json', '--data-dir', dir], { LECTERN_SECRET_KEY: key, DATABASE_URL: target.replace('lectern@', 'lectern:hunter2@') })
    expect(moved.exitCode, moved.stderr).toBe(0)
    expect(moved.stdout + moved.stderr).not.toContain(key)
    expect(moved.stdout + moved.stderr).not.toContain('hunter2')
    const report = JSON.parse(moved.stdout) as { to: string; rows: number; tables: Array<{ table: string; rows: number; checksum: string }>; files: Array<{ name: string; bytes: number }> }
    expect(report.to).toMatch(/^postgres:\/\/lectern:\*\*\*@127\.0\.0\.1:\d+\/moved$/)
    expect(report.tables.find((t) => t.table === 'snippets')!.rows).toBeGreaterThan(300)
    expect(report.tables.find((t) => t.table === 'libraries')!.rows).toBe(4)
    expect(report.tables.map((t) => t.table)).not.toContain('replicas')
    expect(report.files).toEqual([expect.objectContaining({ name: expect.stringMatching(/^uploads\//), bytes: Buffer.byteLength(PETSHOP_YAML) })])
    expect(await rowsIn(target)).toBe(report.rows + report.files.length)

    // A replica on PostgreSQL, with a data directory of its own, answers every question the same.
    const replicaEnv = { DATABASE_URL: target, LECTERN_SECRET_KEY: key }
    const replica = await startServer(await tmpDir('lectern-replica-'), { ...replicaEnv, ...gitEnv })
    expect(await answersOf(replica.url)).toEqual(before)
    // Its jobs read the uploaded spec from the database, and new rows take keys past the copied ones.
    const cliDir = await tmpDir('lectern-cli-')
    const refreshed = await runCli(['refresh', '/docs/pet-shop', '--force', '--wait', '--data-dir', cliDir], replicaEnv)
    expect(refreshed.exitCode, refreshed.stderr).toBe(0)
    const another = path.join(cliDir, 'petshop.yaml')
    await fs.writeFile(another, PETSHOP_YAML)
    const added = await runCli(['add', 'openapi', another, '--title', 'Pet Shop Two', '--wait', '--data-dir', cliDir], replicaEnv)
    expect(added.exitCode, added.stderr).toBe(0)

    // Into a database that holds an install: refused, naming what it holds.
    const again = await migrate({ LECTERN_SECRET_KEY: key })
    expect(again.exitCode).toBe(exitCodeOf('restore_refused'))
    expect(again.stderr).toMatch(/already holds a Lectern install \(rows in [a-z_, ]*libraries/)
    // The data directory was only read: it still serves on SQLite.
    const listed = await runCli(['libraries', 'list', '--json', '--data-dir', dir])
    expect(listed.exitCode, listed.stderr).toBe(0)
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(4)
  })

  it('leaves the target without rows when a row cannot go in, and copies into it once the row is fixed', async () => {
    const dir = await tmpDataDir()
    expect((await runCli(['keys', 'create', '--name', 'ci', '--data-dir', dir])).exitCode).toBe(0)
    // PostgreSQL's text holds no NUL character, which SQLite's does.
    const db = new Database(path.join(dir, 'lectern.db'))
    db.prepare('INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)').run('test.nul', '"a\u0000b"', new Date().toISOString())
    db.close()
    const postgres = await startPostgres(defer)
    await createDatabase(postgres.url, 'moved')
    const target = withDatabase(postgres.url, 'moved')
    const env = { LECTERN_SECRET_KEY: await keyOf(dir) }
    const failed = await runCli(['migrate-store', '--to', target, '--data-dir', dir], env)
    expect(failed.exitCode).toBe(exitCodeOf('internal_error'))
    expect(failed.stderr).toContain('Copying settings into PostgreSQL failed')
    expect(failed.stderr).toContain('Nothing was changed.')
    expect(await rowsIn(target)).toBe(0)

    const fixed = new Database(path.join(dir, 'lectern.db'))
    fixed.prepare("DELETE FROM settings WHERE key = 'test.nul'").run()
    fixed.close()
    const moved = await runCli(['migrate-store', '--to', target, '--data-dir', dir], env)
    expect(moved.exitCode, moved.stderr).toBe(0)
    expect(moved.stderr).toMatch(/Copied \d+ rows in \d+ tables and 0 files into postgres:\/\/lectern@127\.0\.0\.1:\d+\/moved; every count and checksum matches/)
    expect(await rowsIn(target)).toBeGreaterThan(0)
  })
})
