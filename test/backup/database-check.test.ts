/**
 * An archive whose checksums are all right but whose database member is not a usable Lectern
 * database (not SQLite, not Lectern's schema, or damaged) is refused before anything changes,
 * by `lectern restore` and by the dashboard's dry run alike.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { createArchive } from '../../src/backup/archive.js'
import { archiveName } from '../../src/backup/names.js'
import { openStore } from '../../src/store/index.js'
import { runCli } from '../helpers/cli.js'
import { testSettingKey } from '../helpers/settings.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { fingerprintDir, repack, seededApp, sessionCookie, unpack } from './helpers.js'

// Spawned CLIs: slow on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 })

const teardown = suiteTeardown()
let good: string
let app: FastifyInstance
let admin: string
let made = 0

beforeAll(async () => {
  app = await seededApp({ defer: teardown })
  admin = await sessionCookie(app, 'admin')
  good = (await createArchive(app.runtime.store, await tmpDir('lectern-out-', teardown))).file
})

/** The good archive with its database changed by `damage`, resealed so every checksum matches. */
async function withDatabase(damage: (file: string) => void): Promise<string> {
  const dir = await unpack(good)
  damage(path.join(dir, 'lectern.db'))
  // Named like a real archive (a name of its own) at the app's local destination, for the dry run too.
  fs.mkdirSync(app.runtime.store.paths.backups, { recursive: true })
  const file = path.join(app.runtime.store.paths.backups, archiveName(new Date(Date.UTC(2030, 0, 1) + ++made * 1000)))
  await repack(dir, file, { reseal: true })
  return file
}

function sqlite(file: string, statements: string): void {
  const db = new Database(file)
  try {
    db.exec(statements)
  } finally {
    db.close()
  }
}

const CASES: Array<[string, (file: string) => void, RegExp]> = [
  ['not a SQLite database', (file) => fs.writeFileSync(file, randomBytes(fs.statSync(file).size)), /lectern\.db is not a SQLite database/],
  [
    'a SQLite database of something else',
    (file) => {
      fs.rmSync(file)
      sqlite(file, 'CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos (name) VALUES (\'cat.jpg\');')
    },
    /not a Lectern database \(no knex_migrations table\)/,
  ],
  ['Lectern\'s schema with a table missing', (file) => sqlite(file, 'PRAGMA journal_mode = DELETE; DROP TABLE api_keys;'), /lacks Lectern's table api_keys/],
  [
    'damaged inside (a b-tree page zeroed, as a bad sector leaves it)',
    (file) => {
      const bytes = fs.readFileSync(file)
      const pageSize = bytes.readUInt16BE(16)
      bytes.fill(0, pageSize * 10, pageSize * 11)
      fs.writeFileSync(file, bytes)
    },
    /lectern\.db cannot be read as a SQLite database \(database disk image is malformed\)/,
  ],
  [
    'readable, but an index disagrees with its table (integrity_check fails)',
    (file) => {
      const db = new Database(file, { readonly: true })
      const root = db.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_settings_1'`).pluck().get() as number
      db.close()
      const bytes = fs.readFileSync(file)
      const pageSize = bytes.readUInt16BE(16)
      const page = bytes.subarray((root - 1) * pageSize, root * pageSize)
      // One letter of the index's copy of a settings key: the table row and its index entry now differ.
      page[page.indexOf('secrets.canary') + 13]! ^= 1
      fs.writeFileSync(file, bytes)
    },
    /lectern\.db fails SQLite's integrity check \(row 1 missing from index sqlite_autoindex_settings_1\)/,
  ],
]

describe('a database member that is not a usable Lectern database', () => {
  it.each(CASES)('%s: lectern restore refuses it (exit 9, archive_invalid) and changes nothing', async (_name, damage, message) => {
    const archive = await withDatabase(damage)
    const dataDir = await tmpDir('lectern-data-')
    const store = await openStore(dataDir)
    await store.settings.set(testSettingKey('marker'), 'current')
    await store.close()
    const before = fingerprintDir(dataDir)
    const result = await runCli(['restore', archive, '--yes', '--json', '--data-dir', dataDir])
    expect(result.exitCode, result.stderr).toBe(9)
    const body = JSON.parse(result.stdout) as { error: string; message: string }
    expect(body.error).toBe('archive_invalid')
    expect(body.message).toMatch(message)
    expect(body.message).toContain('Nothing was changed')
    expect(fingerprintDir(dataDir)).toEqual(before)
    expect(fs.readdirSync(dataDir).filter((f) => f.includes('restore'))).toEqual([])
  })

  it.each(CASES)('%s: the dashboard dry run refuses it (400 archive_invalid) and stages nothing', async (_name, damage, message) => {
    const archive = await withDatabase(damage)
    const name = path.basename(archive)
    for (const query of ['?dryRun=true', '']) {
      const res = await app.inject({ method: 'POST', url: `/api/backups/${name}/restore${query}`, headers: { cookie: admin } })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ error: 'archive_invalid', message: expect.stringMatching(message) })
    }
    expect(fs.existsSync(app.runtime.store.paths.restoreStaged)).toBe(false)
    expect(fs.readdirSync(app.runtime.store.paths.root).filter((f) => f.startsWith('.restore-tmp-'))).toEqual([])
  })

  it('the good archive passes the same checks (dry run and CLI)', async () => {
    fs.copyFileSync(good, path.join(app.runtime.store.paths.backups, path.basename(good)))
    const ok = await app.inject({ method: 'POST', url: `/api/backups/${path.basename(good)}/restore?dryRun=true`, headers: { cookie: admin } })
    expect(ok.statusCode, ok.body).toBe(200)
    expect(ok.json()).toMatchObject({ dryRun: true, libraries: expect.arrayContaining([expect.objectContaining({ id: '/acme/widgets' })]) })
    const result = await runCli(['restore', good, '--yes', '--json', '--data-dir', await tmpDir('lectern-data-')])
    expect(result.exitCode, result.stderr).toBe(0)
  })
})
