/**
 * Jobs queued before the upgrade to one ingest job still run after it: a database left by the
 * previous release, with git jobs of the retired kind `ingest-git` queued (one with a sealed
 * token, one for a tag version), is opened by this build, whose migration turns them into
 * `ingest` jobs of the git reader; the worker runs them with the options they were queued with.
 */
import fs from 'node:fs'
import Database from 'better-sqlite3'
import knexFactory from 'knex'
import { describe, expect, it } from 'vitest'
import { MIGRATIONS, sourceOf } from '../../migrations/index.js'
import { dataPaths } from '../../src/install/paths.js'
import { createSecretBox } from '../../src/secrets/cipher.js'
import { loadOrCreateSecretKey } from '../../src/secrets/key.js'
import { buildTestApp, waitForLibrary } from '../helpers/app.js'
import { git, makeGitRepo, redirectGitHub } from '../helpers/git.js'
import { pollUntil } from '../helpers/poll.js'
import { tmpDir } from '../helpers/tmp.js'

/** The last migration of the release that had a job kind per pipeline. */
const PREVIOUS_RELEASE = '0010_snippet_origins'

/** A data directory as the previous release left it: its migrations only, then `seed` writes rows the way it did. */
async function previousReleaseDataDir(seed: (db: Database.Database, seal: (token: string) => string) => void): Promise<string> {
  const dataDir = await tmpDir('lectern-data-') // empty: the schema of an older Lectern is built below
  const paths = dataPaths(dataDir)
  fs.mkdirSync(paths.vectors, { recursive: true })
  const secrets = createSecretBox(loadOrCreateSecretKey(paths.secretKey))
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: paths.database }, useNullAsDefault: true })
  await knex.migrate.latest({
    migrationSource: sourceOf(MIGRATIONS.slice(0, MIGRATIONS.findIndex(([name]) => name === PREVIOUS_RELEASE) + 1)),
  })
  await knex.destroy()
  const db = new Database(paths.database)
  try {
    seed(db, (token) => secrets.seal(token))
  } finally {
    db.close()
  }
  return dataDir
}

const NOW = '2026-01-01T00:00:00.000Z'

function insertLibrary(db: Database.Database, id: string, options: object): number {
  return Number(
    db
      .prepare(`INSERT INTO libraries (id, title, source_type, source_url, options, created_at, updated_at) VALUES (?, ?, 'github', ?, ?, ?, ?)`)
      .run(id, id.split('/')[2], `https://github.com${id}`, JSON.stringify(options), NOW, NOW).lastInsertRowid,
  )
}

function insertVersion(db: Database.Database, libraryPk: number, tag: string): number {
  return Number(db.prepare(`INSERT INTO library_versions (library_pk, tag, state, updated_at) VALUES (?, ?, 'initial', ?)`).run(libraryPk, tag, NOW).lastInsertRowid)
}

function insertJob(db: Database.Database, job: { kind: string; libraryPk?: number; versionPk?: number; payload: object; secret?: string; state?: string }): number {
  return Number(
    db
      .prepare(`INSERT INTO jobs (kind, library_pk, version_pk, payload, secret, state, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(job.kind, job.libraryPk ?? null, job.versionPk ?? null, JSON.stringify(job.payload), job.secret ?? null, job.state ?? 'queued', NOW).lastInsertRowid,
  )
}

describe('upgrading a data directory with queued jobs of the retired kinds', () => {
  it('runs the queued git jobs as ingest jobs, with their library options, ref and token', async () => {
    const remotes = await tmpDir('lectern-remotes-')
    // Code and no docs: only generateDocs, which the old job read from its library, gives snippets.
    const clock = await makeGitRepo({ 'clock/clock.go': 'package clock\n\n// Now returns the current time of the clock.\nfunc Now() Time { return Time{} }\n' }, { parent: remotes, name: 'clock' })
    const guide = await makeGitRepo({ 'docs/guide.md': '# Guide\n\n## Connect\n\nConnect with the connect function.\n\n```js\nconnect("db")\n```\n' }, { parent: remotes, name: 'guide' })
    await git(['tag', 'v1.0.0'], guide.dir)
    redirectGitHub(remotes)
    const pks: Record<string, number> = {}
    const dataDir = await previousReleaseDataDir((db, seal) => {
      const clockPk = insertLibrary(db, '/acme/clock', { skipVersionFiltering: false, generateDocs: true })
      pks.clock = insertJob(db, {
        kind: 'ingest-git',
        libraryPk: clockPk,
        versionPk: insertVersion(db, clockPk, ''),
        payload: { repoUrl: 'https://github.com/acme/clock', repoKind: 'github', skipVersionFiltering: false },
        secret: seal('ghp-queued-before-the-upgrade'),
      })
      const guidePk = insertLibrary(db, '/acme/guide', { skipVersionFiltering: false, generateDocs: false })
      insertVersion(db, guidePk, '')
      pks.tag = insertJob(db, {
        kind: 'ingest-git',
        libraryPk: guidePk,
        versionPk: insertVersion(db, guidePk, 'v1.0.0'),
        payload: { repoUrl: 'https://github.com/acme/guide', repoKind: 'github', ref: 'v1.0.0', skipVersionFiltering: false, force: false },
      })
      pks.oldGit = insertJob(db, { kind: 'ingest-git', payload: { repoUrl: 'https://github.com/acme/gone', repoKind: 'github' }, state: 'succeeded' })
      pks.oldSource = insertJob(db, { kind: 'ingest-source', payload: { spec: { type: 'llmstxt', url: 'https://docs.example.com/llms.txt' }, force: true }, state: 'failed' })
    })

    const app = await buildTestApp({ dataDir })
    const { store } = app.runtime
    const jobEnd = (pk: number) =>
      pollUntil(`job ${pk} to end`, async () => {
        const job = await store.jobs.byPk(pk)
        return job?.state === 'succeeded' || job?.state === 'failed' ? job : undefined
      })
    expect(await store.jobs.byPk(pks.clock)).toMatchObject({
      kind: 'ingest',
      payload: { spec: { type: 'git', url: 'https://github.com/acme/clock', sourceKind: 'github', skipVersionFiltering: false, generateDocs: true }, force: false },
    })
    expect((await store.jobs.byPk(pks.oldGit))?.kind).toBe('ingest')
    expect(await store.jobs.byPk(pks.oldSource)).toMatchObject({ kind: 'ingest', payload: { spec: { type: 'llmstxt', url: 'https://docs.example.com/llms.txt' }, force: true } })

    // The sealed token was opened for the job and erased when it ended.
    const ended = await jobEnd(pks.clock)
    expect(ended, ended.errorMessage ?? '').toMatchObject({ state: 'succeeded', secret: null })
    expect(await waitForLibrary(app, '/acme/clock')).toMatchObject({ state: 'finalized', commitSha: clock.commit })
    const res = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/clock', query: 'what time is it now', type: 'json' } })
    expect(res.json().codeSnippets[0]).toMatchObject({ codeTitle: 'func Now()' })

    const tagged = await jobEnd(pks.tag)
    expect(tagged, tagged.errorMessage ?? '').toMatchObject({ state: 'succeeded' })
    const pinned = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/guide/v1.0.0', query: 'connect', type: 'json' } })
    expect(pinned.json().codeSnippets[0]).toMatchObject({ codeTitle: 'Connect', codeId: `https://github.com/acme/guide/blob/${guide.commit}/docs/guide.md#connect` })
  })
})
