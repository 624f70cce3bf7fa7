/**
 * An install whose store is PostgreSQL (DATABASE_URL), driven through the real binary: the server
 * and the CLI each with a data directory of their own share one install through the database, the
 * URL's password is never shown, and what cannot work yet (archives of a PostgreSQL store) is
 * refused with what to do instead.
 */
import fs from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import path from 'node:path'
import pg from 'pg'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { exitCodeOf } from '../../cli/run.js'
import { POSTGRES_MIGRATIONS } from '../../migrations/postgres/index.js'
import { exportLibrary } from '../../src/airgap/export.js'
import { importPayload } from '../../src/airgap/import.js'
import { LOCAL } from '../../src/library/access.js'
import { SYNC_MS } from '../../src/net/shared-rate-limit.js'
import { openStore } from '../../src/store/index.js'
import { POLL_MS as CATALOG_POLL_MS } from '../../src/store/catalog-watch.js'
import { runCli } from '../helpers/cli.js'
import { makeGitRepo } from '../helpers/git.js'
import { PETSHOP_YAML } from '../helpers/openapi-fixtures.js'
import { GIT_TOKEN, startHeldGitHost } from '../helpers/held-git.js'
import { startServer } from '../helpers/server.js'
import { TEST_SECRET_KEY } from '../helpers/secret-key.js'
import { pollUntil } from '../helpers/poll.js'
import { ancestorPids } from '../helpers/system.js'
import { startPostgres } from '../helpers/postgres.js'
import { createDatabase, freshDatabase, withDatabase } from '../helpers/stores.js'
import { ollamaStandIn } from '../airgap/ollama-standin.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

// Real servers (two at a time) and CLI processes, each migrating and opening PostgreSQL, on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 })

const serverDefer = suiteTeardown()

/** The environment of a replica of the install in `url`: a password in the URL, as Compose files write it (the test server trusts loopback, so any password opens it). */
const replica = (url: string, key = TEST_SECRET_KEY) => ({ DATABASE_URL: url.replace('postgres://lectern@', 'postgres://lectern:hunter2@'), LECTERN_SECRET_KEY: key })

describe('an install on PostgreSQL', () => {
  it('is one install for a server and a CLI with data directories of their own, and never shows the password', async () => {
    const env = replica(await freshDatabase(serverDefer, serverDefer))
    const server = await startServer(await tmpDir('lectern-replica-'), env)
    const cliDir = await tmpDir('lectern-cli-')
    const created = await runCli(['keys', 'create', '--name', 'ci', '--data-dir', cliDir], env)
    expect(created.exitCode, created.stderr).toBe(0)
    const key = created.stdout.trim()
    const asked = await fetch(`${server.url}/api/v2/libs/search?libraryName=nothing`, { headers: { authorization: `Bearer ${key}` } })
    // Known to the server: 404 for no library, where an unknown key would be 401.
    expect(asked.status).toBe(404)

    const status = await runCli(['status', '--json', '--data-dir', cliDir], env)
    expect(status.exitCode, status.stderr).toBe(0)
    const seen = JSON.parse(status.stdout) as { database: { kind: string; where: string }; schema: string; replicas: Array<{ pid: number }> }
    expect(seen.database).toEqual({ kind: 'postgres', where: expect.stringMatching(/^postgres:\/\/lectern:\*\*\*@127\.0\.0\.1:\d+\/lectern_/) })
    expect(seen.schema).toBe(POSTGRES_MIGRATIONS.at(-1)![0])
    // The server runs elsewhere (another data directory): its heartbeat is what tells.
    expect(seen.replicas.map((r) => r.pid)).toEqual([server.process.pid])
    const text = await runCli(['status', '--data-dir', cliDir], env)
    expect(text.stdout).toMatch(/Database: +PostgreSQL, postgres:\/\/lectern:\*\*\*@/)
    expect(text.stdout).toMatch(new RegExp(`Replicas: +1 up: process ${server.process.pid} on \\S+ \\(Lectern `))
    expect(text.stdout).toMatch(/Server: +none on this data directory; the install is served by the replicas below/)
    const setting = await runCli(['config', 'get', 'database.url', '--data-dir', cliDir], env)
    expect(setting.stdout.trim()).toMatch(/^postgres:\/\/lectern:\*\*\*@127\.0\.0\.1:\d+\/lectern_/)
    const all = await runCli(['config', 'get', '--json', '--data-dir', cliDir], env)
    for (const out of [status.stdout, text.stdout, setting.stdout, all.stdout, all.stderr]) expect(out).not.toContain('hunter2')
  })

  it('refuses a replica without the install key, or with another one, before it serves', async () => {
    const env = replica(await freshDatabase(serverDefer, serverDefer))
    const dir = await tmpDir('lectern-cli-')
    expect((await runCli(['keys', 'list', '--data-dir', dir], env)).exitCode).toBe(0)
    const missing = await runCli(['keys', 'list', '--data-dir', dir], { DATABASE_URL: env.DATABASE_URL, LECTERN_SECRET_KEY: '' })
    expect(missing.exitCode).toBe(exitCodeOf('validation_error'))
    expect(missing.stderr).toContain('LECTERN_SECRET_KEY is required with DATABASE_URL')
    const other = await runCli(['serve', '--port', '0', '--data-dir', await tmpDir('lectern-replica-')], replica(env.DATABASE_URL, 'c3'.repeat(32)))
    expect(other.exitCode).toBe(exitCodeOf('secret_key_mismatch'))
    expect(other.stderr).toContain("LECTERN_SECRET_KEY is not the key this database's secrets were sealed with")
    expect(other.stderr).not.toContain('c3c3')
  })

  it('refuses a malformed DATABASE_URL, and a password in lectern.yaml', async () => {
    const dir = await tmpDir('lectern-cli-')
    const malformed = await runCli(['keys', 'list', '--data-dir', dir], { DATABASE_URL: 'mysql://db/lectern', LECTERN_SECRET_KEY: TEST_SECRET_KEY })
    expect(malformed.exitCode).toBe(exitCodeOf('validation_error'))
    expect(malformed.stderr).toContain('Invalid setting database.url (from DATABASE_URL): expected postgres://user@host:port/database')
    const config = path.join(dir, 'lectern.yaml')
    await fs.writeFile(config, 'database:\n  url: postgres://lectern:hunter2@db.example.com/lectern\n')
    const inFile = await runCli(['keys', 'list', '--config', config, '--data-dir', dir], { LECTERN_SECRET_KEY: TEST_SECRET_KEY })
    expect(inFile.exitCode).toBe(exitCodeOf('validation_error'))
    expect(inFile.stderr).toContain('database.url holds a password; secrets never go in the configuration file')
    expect(inFile.stderr).not.toContain('hunter2')
  })

  it('says it cannot reach the database, with the command exiting database_unreachable', async () => {
    const unreachable = await runCli(['keys', 'list', '--data-dir', await tmpDir('lectern-cli-')], { DATABASE_URL: 'postgres://lectern:hunter2@127.0.0.1:1/lectern', LECTERN_SECRET_KEY: TEST_SECRET_KEY })
    expect(unreachable.exitCode).toBe(exitCodeOf('database_unreachable'))
    expect(unreachable.stderr).toContain('Cannot reach PostgreSQL at postgres://lectern:***@127.0.0.1:1/lectern')
    expect(unreachable.stderr).not.toContain('hunter2')
    // libpq's password parameter is a password too.
    const inQuery = await runCli(['keys', 'list', '--data-dir', await tmpDir('lectern-cli-')], { DATABASE_URL: 'postgres://lectern@127.0.0.1:1/lectern?password=hunter2', LECTERN_SECRET_KEY: TEST_SECRET_KEY })
    expect(inQuery.stderr).toContain('postgres://lectern@127.0.0.1:1/lectern?password=***')
    expect(inQuery.stderr).not.toContain('hunter2')
  })

  it("runs every command in the mode recorded in the install's database, and refuses another", async () => {
    const env = replica(await freshDatabase(serverDefer, serverDefer))
    const created = await runCli(['users', 'create', 'dev@example.com', '--data-dir', await tmpDir('lectern-cli-')], { ...env, LECTERN_MODE: 'cloud' }, { input: 'correct horse battery\n' })
    expect(created.exitCode, created.stderr).toBe(0)
    const status = JSON.parse((await runCli(['status', '--json', '--data-dir', await tmpDir('lectern-cli-')], env)).stdout) as { mode: string; modeSource: string }
    expect(status).toMatchObject({ mode: 'cloud', modeSource: 'data-dir' })
    const other = await runCli(['keys', 'list', '--data-dir', await tmpDir('lectern-cli-')], { ...env, LECTERN_MODE: 'onprem' })
    expect(other.exitCode).toBe(exitCodeOf('validation_error'))
    expect(other.stderr).toContain("This install's database was set up in cloud mode and LECTERN_MODE asks for onprem mode")
  })

  it('backs up with pg_dump, and restores into an empty database only, with the same key and no replica up', async () => {
    const url = await freshDatabase(serverDefer, serverDefer)
    const env = replica(url)
    const dir = await tmpDir('lectern-cli-')
    const spec = path.join(dir, 'petshop.yaml')
    await fs.writeFile(spec, PETSHOP_YAML)
    expect((await runCli(['add', 'openapi', spec, '--title', 'Pet Shop', '--wait', '--data-dir', dir], env)).exitCode).toBe(0)
    const key = (await runCli(['keys', 'create', '--name', 'ci', '--data-dir', dir], env)).stdout.trim()
    const out = await tmpDir('lectern-out-')
    const backup = await runCli(['backup', '--to', out, '--data-dir', dir], env)
    expect(backup.exitCode, backup.stderr).toBe(0)
    // Its progress says what it does on PostgreSQL: a pg_dump, and no vector index or upload to collect.
    expect(backup.stderr).toContain('Dumping the database (pg_dump)')
    expect(backup.stderr).not.toMatch(/VACUUM INTO|vector indexes/)
    const archive = backup.stdout.trim()
    expect(path.dirname(archive)).toBe(out)
    // A schedule is taken: each slot runs on one replica (test/backup/schedule-replicas.test.ts).
    expect((await runCli(['backup', 'config', 'set', '--schedule', 'daily', '--data-dir', dir], env)).exitCode).toBe(0)

    // Refused, changing nothing: another key; a database that holds tables; a replica up; an archive that is not one.
    const emptyName = `lectern_restored_${process.pid}`
    await createDatabase(url, emptyName)
    const empty = replica(withDatabase(url, emptyName))
    const tables = async (database: string) => {
      const client = new pg.Client(database)
      await client.connect()
      try {
        return Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'")).rows[0]!.n)
      } finally {
        await client.end()
      }
    }
    const otherKey = await runCli(['restore', archive, '--yes', '--data-dir', dir], { ...empty, LECTERN_SECRET_KEY: 'b'.repeat(64) })
    expect(otherKey.exitCode).toBe(exitCodeOf('secret_key_mismatch'))
    expect(otherKey.stderr).toContain('LECTERN_SECRET_KEY is not the key the secrets in')
    const notEmpty = await runCli(['restore', archive, '--yes', '--data-dir', dir], env)
    expect(notEmpty.exitCode).toBe(exitCodeOf('restore_refused'))
    expect(notEmpty.stderr).toMatch(/is not empty \(\d+ tables\): restore into an empty database, or pass --force/)
    const server = await startServer(await tmpDir('lectern-replica-'), env)
    const live = await runCli(['restore', archive, '--yes', '--force', '--data-dir', dir], env)
    expect(live.exitCode).toBe(exitCodeOf('restore_refused'))
    expect(live.stderr).toContain('1 replica is serving')
    server.process.kill('SIGTERM')
    await server.process.catch(() => {})
    const junk = path.join(dir, 'nothing.tar.gz')
    await fs.writeFile(junk, 'not an archive')
    expect((await runCli(['restore', junk, '--yes', '--data-dir', dir], empty)).exitCode).toBe(exitCodeOf('archive_invalid'))
    expect(await tables(empty.DATABASE_URL)).toBe(0)
    // Into a data directory (no DATABASE_URL), an archive of PostgreSQL is refused; so is --force, which only a database takes.
    const sqliteDir = await tmpDir('lectern-sqlite-')
    const intoSqlite = await runCli(['restore', archive, '--yes', '--data-dir', sqliteDir])
    expect(intoSqlite.exitCode).toBe(exitCodeOf('restore_refused'))
    expect(intoSqlite.stderr).toContain('The archive is of an install on PostgreSQL (it holds a pg_dump)')
    expect((await runCli(['restore', archive, '--yes', '--force', '--data-dir', sqliteDir])).exitCode).toBe(exitCodeOf('validation_error'))
    expect(await fs.readdir(sqliteDir)).toEqual([])

    const restored = await runCli(['restore', archive, '--yes', '--json', '--data-dir', dir], empty)
    expect(restored.exitCode, restored.stderr).toBe(0)
    expect(JSON.parse(restored.stdout)).toMatchObject({ preRestoreDir: null, libraries: [expect.objectContaining({ id: '/docs/pet-shop' })] })
    // The restored install answers, knows its key, and refreshes the uploaded spec the dump carried.
    const again = await startServer(await tmpDir('lectern-replica-'), empty)
    const answer = await fetch(`${again.url}/api/v2/context?libraryId=/docs/pet-shop&query=list%20pets`, { headers: { authorization: `Bearer ${key}` } })
    expect(answer.status).toBe(200)
    expect(await answer.text()).toContain('/pets')
    const refreshed = await runCli(['refresh', '/docs/pet-shop', '--force', '--wait', '--data-dir', dir], empty)
    expect(refreshed.exitCode, refreshed.stderr).toBe(0)
    again.process.kill('SIGTERM')
    await again.process.catch(() => {})
    // --force replaces a database's tables, in one transaction.
    const replaced = await runCli(['restore', archive, '--yes', '--force', '--data-dir', dir], env)
    expect(replaced.exitCode, replaced.stderr).toBe(0)
    expect(await tables(url)).toBeGreaterThan(0)
  }, 240_000)

  it('is not ready while PostgreSQL is down, answers what needs it 503, and recovers without a restart', async () => {
    // A server of its own, since this test stops it.
    const postgres = await startPostgres(onTestFinished)
    await createDatabase(postgres.url, 'outage')
    const env = replica(withDatabase(postgres.url, 'outage'))
    const serverDir = await tmpDir('lectern-replica-')
    // One serving process: what is answered from memory is what that process has seen (each of --workers N keeps its own).
    const server = await startServer(serverDir, env, onTestFinished, { args: ['--workers', '1'] })
    const keyOf = async () => (await runCli(['keys', 'create', '--name', 'ci', '--data-dir', await tmpDir('lectern-cli-')], env)).stdout.trim()
    const seen = await keyOf()
    const unseen = await keyOf()
    const search = (key: string) => fetch(`${server.url}/api/v2/libs/search?libraryName=nothing`, { headers: { authorization: `Bearer ${key}` } })
    expect((await search(seen)).status).toBe(404)
    const file = path.join(serverDir, 'petshop.yaml')
    await fs.writeFile(file, PETSHOP_YAML)
    const added = await runCli(['add', 'openapi', file, '--title', 'Pet Shop', '--wait', '--data-dir', serverDir], env)
    expect(added.exitCode, added.stderr).toBe(0)
    const ask = () => fetch(`${server.url}/api/v2/context?libraryId=/docs/pet-shop&query=list%20pets&type=txt`, { headers: { authorization: `Bearer ${seen}` } })
    const before = await ask()
    expect(before.status).toBe(200)
    const answer = await before.text()
    expect(answer).toContain('pets')
    // The catalogue changed with the library: a search reads it once at its new version.
    expect((await search(seen)).status).toBe(404)
    const outage = async () => {
      await postgres.stop()
      const notReady = await pollUntil('/api/ready to say the database is unreachable', async () => {
        const res = await fetch(`${server.url}/api/ready`)
        return res.status === 503 ? ((await res.json()) as { error: string }) : undefined
      })
      expect(notReady.error).toBe('database_unreachable')
      // Liveness is about the process: an orchestrator must not restart every replica for an outage.
      expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
      expect((await fetch(`${server.url}/ping`)).status).toBe(200)
    }
    const recovery = async () => {
      await postgres.start()
      await pollUntil('/api/ready once the database is back', async () => ((await fetch(`${server.url}/api/ready`)).status === 200 ? true : undefined))
    }

    await outage()
    // A key already seen is answered from memory, about a library already loaded too; one never seen needs the database.
    expect((await search(seen)).status).toBe(404)
    const during = await ask()
    expect(during.status).toBe(200)
    expect(await during.text()).toBe(answer)
    const refused = await search(unseen)
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('5')
    expect(await refused.json()).toEqual({ error: 'database_unreachable', message: expect.stringContaining('The database cannot be reached right now'), retryAfter: 5 })
    const cli = await runCli(['keys', 'list', '--data-dir', await tmpDir('lectern-cli-')], env)
    expect(cli.exitCode).toBe(exitCodeOf('database_unreachable'))
    await recovery()
    expect((await search(unseen)).status).toBe(404)

    // The catalogue moves with no request after it (a key revoked): the server learns the version
    // within a poll of its catalogue watch, which no request can show without reading the rules.
    const cliDir = await tmpDir('lectern-cli-')
    const doomed = JSON.parse((await runCli(['keys', 'create', '--name', 'doomed', '--json', '--data-dir', cliDir], env)).stdout) as { id: number }
    expect((await runCli(['keys', 'revoke', String(doomed.id), '--data-dir', cliDir], env)).exitCode).toBe(0)
    await sleep(2 * CATALOG_POLL_MS)
    await outage()
    // What the process remembers may be what moved (this revocation): even a key seen waits for the database.
    expect((await search(seen)).status).toBe(503)
    await recovery()
    expect((await search(seen)).status).toBe(404)
    expect(server.process.exitCode).toBeNull()
  })

  it('keeps uploaded specs and staged imports in the database, so any replica runs their jobs', async () => {
    const env = replica(await freshDatabase(serverDefer, serverDefer))
    const cliDir = await tmpDir('lectern-cli-')
    // With no server of the install up, a queued job waits for one, which the CLI says.
    const unserved = await runCli(['add', 'https://github.com/acme/elsewhere', '--data-dir', cliDir], env)
    expect(unserved.exitCode, unserved.stderr).toBe(0)
    expect(unserved.stderr).toContain('No server of this install is running: start `lectern serve` on any host to run the job, or pass --wait to run it here.')
    const store = await openStore(await tmpDir('lectern-store-'), { databaseUrl: env.DATABASE_URL, env: { LECTERN_SECRET_KEY: TEST_SECRET_KEY } })
    onTestFinished(() => store.close())
    const [elsewhere] = await store.jobs.list({ states: ['queued'] })
    expect((await runCli(['jobs', 'cancel', String(elsewhere!.pk), '--data-dir', cliDir], env)).exitCode).toBe(0)

    const first = await startServer(await tmpDir('lectern-replica-'), env, onTestFinished, { args: ['--workers', '1'] })
    const file = path.join(cliDir, 'petshop.yaml')
    await fs.writeFile(file, PETSHOP_YAML)
    // The CLI's data directory is not the replica's: the spec travels in the database, and the replica runs its job.
    const added = await runCli(['add', 'openapi', file, '--title', 'Pet Shop', '--wait', '--json', '--data-dir', cliDir], env)
    expect(added.exitCode, added.stderr).toBe(0)
    expect(added.stderr).not.toMatch(/no server/i)
    expect(await fs.readdir(cliDir)).not.toContain('uploads')
    expect((await store.inputFiles.list('uploads/')).map((f) => f.name)).toEqual(['uploads/pet-shop.yaml'])
    const ranOn = async (jobPk: number) => (await store.jobs.byPk(jobPk))!.runner!.host
    const [upload] = await store.jobs.list({ states: ['succeeded'] })
    const ask = (server: { url: string }) => fetch(`${server.url}/api/v2/context?libraryId=/docs/pet-shop&query=list%20pets`)
    expect(await (await ask(first)).text()).toContain('/pets')

    // Another replica refreshes it from the database once the first is gone.
    const second = await startServer(await tmpDir('lectern-replica-'), env, onTestFinished, { args: ['--workers', '1'] })
    first.process.kill('SIGTERM')
    await first.process.catch(() => {})
    const refreshed = await runCli(['refresh', '/docs/pet-shop', '--force', '--wait', '--json', '--data-dir', cliDir], env)
    expect(refreshed.exitCode, refreshed.stderr).toBe(0)
    const refresh = (await store.jobs.list({ states: ['succeeded'] })).find((job) => job.pk !== upload!.pk)!
    expect(await ranOn(refresh.pk)).toBe(await ranOn(upload!.pk))
    expect(refresh.runner!.pid).not.toBe(upload!.runner!.pid)

    // An import staged in another data directory (this test's store), run by the replica; the staged file goes once it is read.
    const payload = path.join(cliDir, 'pet-shop.json')
    await fs.writeFile(payload, JSON.stringify({ libraries: [await exportLibrary(store, '/docs/pet-shop', LOCAL)] }))
    expect((await runCli(['libraries', 'remove', '/docs/pet-shop', '--yes', '--data-dir', cliDir], env)).exitCode).toBe(0)
    expect(await store.inputFiles.list('uploads/')).toEqual([])
    const { jobs } = await importPayload(store, payload, 'The payload', false)
    expect((await store.inputFiles.list('imports/')).map((f) => f.name)).toEqual([jobs[0]!.payload.file])
    await pollUntil('the replica to run the import', async () => ((await store.jobs.byPk(jobs[0]!.pk))?.state === 'succeeded' ? true : undefined))
    expect(await (await ask(second)).text()).toContain('/pets')
    expect(await store.inputFiles.list('imports/')).toEqual([])
    expect(await fs.readdir(path.join(store.paths.root, 'imports'))).toEqual([])
  })

  it("stores a real embedder's vectors with the set: another replica answers by vector without asking the embedder for them", async () => {
    const env = replica(await freshDatabase(serverDefer, serverDefer))
    const ollama = await ollamaStandIn(16)
    onTestFinished(() => ollama.close())
    const cliDir = await tmpDir('lectern-cli-')
    expect((await runCli(['config', 'set', 'embedding.provider', 'ollama', '--model', 'nomic-embed-text', '--host', ollama.url, '--data-dir', cliDir], env)).exitCode).toBe(0)
    const first = await startServer(await tmpDir('lectern-replica-'), env, onTestFinished, { args: ['--workers', '1'] })
    const file = path.join(cliDir, 'petshop.yaml')
    await fs.writeFile(file, PETSHOP_YAML)
    const added = await runCli(['add', 'openapi', file, '--title', 'Pet Shop', '--wait', '--data-dir', cliDir], env)
    expect(added.exitCode, added.stderr).toBe(0)
    const embedded = ollama.calls.length

    const secondDir = await tmpDir('lectern-replica-')
    const second = await startServer(secondDir, env, onTestFinished, { args: ['--workers', '1'], logLevel: 'info' })
    // No word of the question is in the spec: only the vectors can answer it.
    const question = 'zzzz qqqq'
    const answer = await fetch(`${second.url}/api/v2/context?libraryId=/docs/pet-shop&query=${encodeURIComponent(question)}`)
    expect(answer.status).toBe(200)
    expect(await answer.text()).toContain('/pets')
    expect((await fs.readdir(path.join(secondDir, 'vectors'))).filter((name) => name.endsWith('.usearch'))).toHaveLength(1)
    // The second replica asked the embedder for the question alone.
    const asked = ollama.calls.slice(embedded).flat()
    expect(asked.length).toBeGreaterThan(0)
    expect(asked.every((text) => text.includes(question))).toBe(true)
    expect(first.process.exitCode).toBeNull()
    // Its engine file and vector index were written off the serving thread.
    second.process.kill('SIGTERM')
    const messages = String((await second.process).stdout).split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { msg: string }).msg)
    expect(messages.filter((msg) => / on (its own|the serving) thread/.test(msg))).toEqual([
      expect.stringMatching(/^rebuilt the engine data of snippet set \d+ \(\d+ snippets\) from its rows in \d+ ms, on its own thread$/),
      expect.stringMatching(/^wrote the vector index of snippet set \d+ \(\d+ vectors\) from its stored vectors in \d+ ms, on its own thread: the file missing$/),
    ])
  })

  it('makes one setup token per install: a second replica points to the first one\'s, which any replica takes', async () => {
    const env = replica(await freshDatabase(serverDefer, serverDefer))
    const [dirA, dirB] = [await tmpDir('lectern-replica-'), await tmpDir('lectern-replica-')]
    await startServer(dirA, env, onTestFinished, { args: ['--workers', '1'] })
    const second = await startServer(dirB, env, onTestFinished, { logLevel: 'info', args: ['--workers', '1'] })
    const token = (await fs.readFile(path.join(dirA, 'setup-token'), 'utf8')).trim()
    await expect(fs.access(path.join(dirB, 'setup-token'))).rejects.toThrow()
    const created = await fetch(`${second.url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: second.url },
      body: JSON.stringify({ token, email: 'ops@example.com', password: 'correct horse battery staple' }),
    })
    expect(created.status, await created.clone().text()).toBe(200)
    second.process.kill('SIGTERM')
    const { stdout } = await second.process
    expect(stdout).toContain(`enter the setup token another replica made, in ${path.join(dirA, 'setup-token')} on `)
  })

  it("holds a key to its rate limit over two replicas, one serving alone and one with --workers 2", async () => {
    // A day's window (the longest), entered well before its end: a window ending mid-test would reset every count.
    const WINDOW_S = 86_400
    const left = WINDOW_S * 1000 - (Date.now() % (WINDOW_S * 1000))
    if (left < 60_000) await sleep(left + 1000)
    const database = await freshDatabase(serverDefer, serverDefer)
    const env = { ...replica(database), LECTERN_RATE_LIMIT_KEYED: '10', LECTERN_RATE_LIMIT_WINDOW: String(WINDOW_S) }
    const key = (await runCli(['keys', 'create', '--name', 'ci', '--data-dir', await tmpDir('lectern-cli-')], env)).stdout.trim()
    const alone = await startServer(await tmpDir('lectern-replica-'), env, onTestFinished, { args: ['--workers', '1'] })
    const clustered = await startServer(await tmpDir('lectern-replica-'), env, onTestFinished, { args: ['--workers', '2'] })
    const ask = async (server: { url: string }) => (await fetch(`${server.url}/api/v2/libs/search?libraryName=nothing`, { headers: { authorization: `Bearer ${key}` } })).status
    const statuses = async (server: { url: string }, n: number) => {
      const seen: number[] = []
      for (let i = 0; i < n; i++) seen.push(await ask(server))
      return seen
    }
    /** Waits until both replicas have added what they granted, then for each to read the total back at its next sync. */
    const shared = async (total: number) => {
      const client = new pg.Client(database)
      await client.connect()
      try {
        await pollUntil('the counts in rate_counts', async () => {
          const { rows } = await client.query<{ sum: string | null }>('SELECT sum(count) AS sum FROM rate_counts')
          return Number(rows[0].sum) === total ? true : undefined
        }, 30_000)
      } finally {
        await client.end()
      }
      await sleep(2 * SYNC_MS + 500)
    }
    // Each replica has seen the key before the counts are shared (a first sight is the slack, docs/scaling.md).
    expect(await statuses(clustered, 1)).toEqual([404])
    expect(await statuses(alone, 5)).toEqual([404, 404, 404, 404, 404])
    await shared(6)
    expect(await statuses(clustered, 6)).toEqual([404, 404, 404, 404, 429, 429])
    await shared(10)
    expect(await statuses(alone, 1)).toEqual([429])
  })

  it("shares the queue among replicas: a job whose replica was killed is run again by another once its lease lapses", async () => {
    const url = await freshDatabase(serverDefer, serverDefer)
    const remotes = await tmpDir('lectern-remotes-')
    await makeGitRepo({ 'README.md': '# Thing\n\n## Install\n\nRun `npm install thing` to install the thing.\n\n```js\nthing.start()\n```\n' }, { parent: remotes, name: 'thing' })
    const git = await startHeldGitHost(remotes, onTestFinished)
    const env = { ...replica(url), ...git.env, LECTERN_JOB_LEASE: '3', LECTERN_RATE_LIMIT_KEYED: '0' }
    const created = await runCli(['keys', 'create', '--name', 'ci', '--data-dir', await tmpDir('lectern-cli-')], env)
    const keyed = { authorization: `Bearer ${created.stdout.trim()}`, 'content-type': 'application/json' }
    const replicas = [await startServer(await tmpDir('lectern-replica-'), env), await startServer(await tmpDir('lectern-replica-'), env)]
    const store = await openStore(await tmpDir('lectern-store-'), { databaseUrl: url, env: { LECTERN_SECRET_KEY: TEST_SECRET_KEY } })
    onTestFinished(() => store.close())

    git.hold = true
    const added = await fetch(`${replicas[0]!.url}/api/v2/add/repo/github`, { method: 'POST', headers: keyed, body: JSON.stringify({ docsRepoUrl: 'https://github.com/acme/thing', gitToken: GIT_TOKEN }) })
    expect(added.status, await added.clone().text()).toBe(200)
    const first = await pollUntil('the job to run, inside a held fetch', async () => {
      const [job] = await store.jobs.list({ states: ['running'] })
      return job && git.held > 0 ? job : undefined
    })
    // The replica whose job process runs it: the job names the job process, a descendant of the server.
    const lineage = ancestorPids(first.runner!.pid)
    const running = replicas.findIndex((r) => lineage.includes(r.process.pid!))
    expect(running).toBeGreaterThanOrEqual(0)
    const survivor = replicas[1 - running]!

    git.hold = false
    const killedAt = Date.now()
    replicas[running]!.process.kill('SIGKILL')
    const done = await pollUntil('another replica to re-run the job to its end', async () => {
      const job = await store.jobs.byPk(first.pk)
      return job?.state === 'succeeded' ? job : undefined
    }, 60_000)
    expect(done.attempts).toBe(2)
    expect(done.owner).not.toBe(first.owner)
    // Failed over within the lease, the poll after it, and the re-run.
    expect(Date.now() - killedAt).toBeLessThan(30_000)
    const answer = await fetch(`${survivor.url}/api/v2/context?libraryId=/acme/thing&query=install`, { headers: keyed })
    expect(answer.status).toBe(200)
    expect(await answer.text()).toContain('npm install thing')
    const log = await store.jobLogs.list(first.pk)
    expect(log.map((line) => line.message)).toContain('job succeeded')
  })
})

