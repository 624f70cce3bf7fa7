import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import { execa } from 'execa'
import knexFactory from 'knex'
import * as tar from 'tar'
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { MIGRATIONS, sourceOf } from '../../migrations/index.js'
import { createArchive } from '../../src/backup/archive.js'
import { updateBackupConfig, viewBackupConfig } from '../../src/backup/config.js'
import { pendingMoves, restoreArchive } from '../../src/backup/restore.js'
import { isLecternError } from '../../src/errors.js'
import { dataPaths } from '../../src/install/paths.js'
import { createSecretBox } from '../../src/secrets/cipher.js'
import { loadOrCreateSecretKey } from '../../src/secrets/key.js'
import { appliedMigrations } from '../../src/store/db.js'
import { readSnapshotFacts, snapshotDatabase } from '../../src/store/database-file.js'
import { openStore, sqliteOf, type Store } from '../../src/store/index.js'
import { createSqliteSql } from '../../src/store/sqlite-sql.js'
import { createSettingsRepository } from '../../src/store/settings.js'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { startServer } from '../helpers/server.js'
import { testSettingKey } from '../helpers/settings.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { fingerprintDir, repack, seededApp, unpack } from './helpers.js'

const teardown = suiteTeardown()
let good: string

beforeAll(async () => {
  const app = await seededApp({ defer: teardown })
  await updateBackupConfig(app.runtime.store, { destination: { type: 's3', bucket: 'b', secretAccessKey: 's3-secret-value' } })
  good = (await createArchive(app.runtime.store, await tmpDir('lectern-out-', teardown))).file
})

/** A data dir with its own (different) data: what a restore replaces. */
async function currentDataDir(): Promise<string> {
  const dir = await tmpDir('lectern-data-')
  const store = await openStore(dir)
  await store.settings.set(testSettingKey('marker'), 'current')
  await store.close()
  return dir
}

async function expectRefused(archive: string, code: string, message?: RegExp) {
  const dir = await currentDataDir()
  const before = fingerprintDir(dir)
  const err = await restoreArchive(dir, archive).catch((e: unknown) => e)
  expect(isLecternError(err) && err.code, String(err)).toBe(code)
  if (message) expect((err as Error).message).toMatch(message)
  expect(fingerprintDir(dir)).toEqual(before)
  expect(fs.readdirSync(dir).filter((f) => f.includes('restore'))).toEqual([])
}

/** A gzip tar built entry by entry, so tests can write what node-tar would refuse to pack. */
function rawArchive(entries: Array<{ path: string; data?: Buffer; type?: 'File' | 'SymbolicLink'; linkpath?: string }>): Buffer {
  const blocks: Buffer[] = []
  for (const e of entries) {
    const data = e.data ?? Buffer.alloc(0)
    const header = new tar.Header({ path: e.path, type: e.type ?? 'File', size: data.length, mode: 0o644, mtime: new Date(0), linkpath: e.linkpath })
    const block = Buffer.alloc(512)
    header.encode(block, 0)
    blocks.push(block, data, Buffer.alloc((512 - (data.length % 512)) % 512))
  }
  blocks.push(Buffer.alloc(1024))
  return gzipSync(Buffer.concat(blocks))
}

describe('restore refuses a bad archive and changes nothing', () => {
  it('truncated', async () => {
    const file = path.join(await tmpDir(), path.basename(good))
    const bytes = fs.readFileSync(good)
    fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)))
    await expectRefused(file, 'archive_invalid', /damaged/)
  })

  it('bit-flipped', async () => {
    const file = path.join(await tmpDir(), path.basename(good))
    const bytes = Buffer.from(fs.readFileSync(good))
    bytes[Math.floor(bytes.length * 0.6)]! ^= 0x10
    fs.writeFileSync(file, bytes)
    await expectRefused(file, 'archive_invalid')
  })

  it('checksum-mismatched member', async () => {
    const dir = await unpack(good)
    const key = fs.readFileSync(path.join(dir, 'secret.key'))
    key[0]! ^= 0xff
    fs.writeFileSync(path.join(dir, 'secret.key'), key)
    const file = path.join(await tmpDir(), path.basename(good))
    await repack(dir, file)
    await expectRefused(file, 'archive_invalid', /secret\.key does not match its checksum/)
  })

  it('without a manifest', async () => {
    const dir = await unpack(good)
    const file = path.join(await tmpDir(), path.basename(good))
    await repack(dir, file, { members: ['lectern.db', 'secret.key'] })
    await expectRefused(file, 'archive_invalid', /manifest\.json is missing/)
  })

  it('with an extra member', async () => {
    const dir = await unpack(good)
    fs.writeFileSync(path.join(dir, 'extra.txt'), 'surprise')
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { members: { path: string }[] }
    const file = path.join(await tmpDir(), path.basename(good))
    await repack(dir, file, { members: ['manifest.json', ...manifest.members.map((m) => m.path), 'extra.txt'] })
    await expectRefused(file, 'archive_invalid', /extra\.txt is not listed/)
  })

  it('with a missing member', async () => {
    const dir = await unpack(good)
    const file = path.join(await tmpDir(), path.basename(good))
    await repack(dir, file, { members: ['manifest.json', 'lectern.db'] })
    await expectRefused(file, 'archive_invalid', /secret\.key named in the manifest is missing/)
  })

  it('with a symlink', async () => {
    const manifest = fs.readFileSync(path.join(await unpack(good), 'manifest.json'))
    const file = path.join(await tmpDir(), path.basename(good))
    fs.writeFileSync(file, rawArchive([{ path: 'manifest.json', data: manifest }, { path: 'secret.key', type: 'SymbolicLink', linkpath: '/etc/passwd' }]))
    await expectRefused(file, 'archive_invalid', /SymbolicLink/)
  })

  it('with a .. path', async () => {
    const manifest = fs.readFileSync(path.join(await unpack(good), 'manifest.json'))
    const file = path.join(await tmpDir(), path.basename(good))
    fs.writeFileSync(file, rawArchive([{ path: 'manifest.json', data: manifest }, { path: '../../evil', data: Buffer.from('x') }]))
    await expectRefused(file, 'archive_invalid', /unsafe path/)
  })

  it('with an absolute path', async () => {
    const manifest = fs.readFileSync(path.join(await unpack(good), 'manifest.json'))
    const file = path.join(await tmpDir(), path.basename(good))
    fs.writeFileSync(file, rawArchive([{ path: 'manifest.json', data: manifest }, { path: '/tmp/evil', data: Buffer.from('x') }]))
    await expectRefused(file, 'archive_invalid')
  })

  it('from a newer Lectern (unknown migration): "upgrade first"', async () => {
    const dir = await unpack(good)
    const file = path.join(await tmpDir(), path.basename(good))
    await repack(dir, file, { edit: (m) => void m.migrations.push('9999_from_the_future') })
    await expectRefused(file, 'restore_refused', /Upgrade first/)
  })

  it('from a newer app version: "upgrade first"', async () => {
    const dir = await unpack(good)
    const file = path.join(await tmpDir(), path.basename(good))
    await repack(dir, file, { edit: (m) => void (m.appVersion = '99.0.0') })
    await expectRefused(file, 'restore_refused', /Upgrade first/)
  })

  it('whose key does not decrypt its secrets (resealed with another key)', async () => {
    const dir = await unpack(good)
    fs.writeFileSync(path.join(dir, 'secret.key'), Buffer.alloc(32, 7))
    const file = path.join(await tmpDir(), path.basename(good))
    await repack(dir, file, { reseal: true })
    await expectRefused(file, 'archive_invalid')
  })
})

describe('restore', () => {
  it('moves the current data into pre-restore-<ts>/ and the restored key opens the restored secrets at once', async () => {
    const dir = await currentDataDir()
    const oldDb = fs.readFileSync(path.join(dir, 'lectern.db'))
    const oldKey = fs.readFileSync(path.join(dir, 'secret.key'))
    const result = await restoreArchive(dir, good)
    expect(fs.readFileSync(path.join(result.preRestoreDir!, 'secret.key')).equals(oldKey)).toBe(true)
    expect(fs.readFileSync(path.join(result.preRestoreDir!, 'lectern.db')).equals(oldDb)).toBe(true)
    const store = await openStore(dir)
    onTestFinished(() => store.close())
    expect(await store.libraries.byId('/acme/widgets')).toBeTruthy()
    expect(await store.settings.get(testSettingKey('marker'))).toBeUndefined()
    expect((await viewBackupConfig(store)).destination).toMatchObject({ type: 's3', secretSet: true })
    expect(store.secrets.open((await store.settings.get<string>('backup.s3Secret'))!)).toBe('s3-secret-value')
  })

  it('restores an archive of an older version; the next start migrates it', async () => {
    const older = await olderArchive()
    const dir = await currentDataDir()
    const result = await restoreArchive(dir, older)
    expect(result.appVersion).toBe('0.0.1')
    const store = await openStore(dir)
    onTestFinished(() => store.close())
    expect(appliedMigrations(sqliteOf(store))).toEqual(MIGRATIONS.map(([name]) => name))
    expect(await store.settings.get(testSettingKey('older'))).toBe(true)
  })

  it('refuses when the disk lacks room for the restored files, changing nothing', async (ctx) => {
    const mountPoint = await tmpDir('lectern-tmpfs-')
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint], { stdio: 'ignore' })
    } catch {
      ctx.skip('cannot mount a tmpfs here (needs root)')
    }
    onTestFinished(() => void execFileSync('umount', [mountPoint]))
    const app = await seededApp()
    await app.runtime.store.settings.set(testSettingKey('bulk'), randomBytes(6 * 1024 * 1024).toString('base64'))
    const big = (await createArchive(app.runtime.store, await tmpDir())).file
    const dir = path.join(mountPoint, 'data')
    const store = await openStore(dir)
    await store.close()
    const before = fingerprintDir(dir)
    await expect(restoreArchive(dir, big)).rejects.toThrow(/Not enough free disk/)
    expect(fingerprintDir(dir)).toEqual(before)
  })

  it('refuses while a server holds the data directory', async () => {
    const dir = await currentDataDir()
    await startServer(dir)
    const before = fingerprintDir(dir)
    await expect(restoreArchive(dir, good)).rejects.toThrow(/Stop it first/)
    expect(fingerprintDir(dir)).toEqual(before)
  })

  it('a restore killed after any number of moves is finished by the next opening: new data fully in place, old data in pre-restore', async () => {
    const total = await countMoves()
    for (let done = 0; done <= total; done++) {
      const dir = await currentDataDir()
      const oldKey = fs.readFileSync(path.join(dir, 'secret.key'))
      const paths = dataPaths(dir)
      const journal = { tempDir: path.join(dir, '.restore-tmp-x'), preRestoreDir: path.join(dir, 'pre-restore-x'), archive: good, startedAt: 'now' }
      await fsp.cp(await unpack(good), journal.tempDir, { recursive: true })
      fs.writeFileSync(paths.restoreJournal, JSON.stringify(journal))
      fs.mkdirSync(journal.preRestoreDir)
      for (const [from, to] of pendingMoves(paths, journal).slice(0, done)) fs.renameSync(from, to)
      const store = await openStore(dir)
      expect(await store.libraries.byId('/acme/widgets'), `after ${done} moves`).toBeTruthy()
      await store.close()
      expect(fs.readFileSync(path.join(journal.preRestoreDir, 'secret.key')).equals(oldKey)).toBe(true)
      expect(fs.existsSync(paths.restoreJournal)).toBe(false)
      expect(fs.existsSync(journal.tempDir)).toBe(false)
    }
  })

  it('a restore into a new data directory killed after any number of moves is finished by the next opening, with no pre-restore left', async () => {
    const dir = await tmpDir('lectern-new-')
    const journal = { tempDir: path.join(dir, '.restore-tmp-x'), preRestoreDir: path.join(dir, 'pre-restore-x'), archive: good, startedAt: 'now' }
    await fsp.cp(await unpack(good), journal.tempDir, { recursive: true })
    const total = pendingMoves(dataPaths(dir), journal).length
    await fsp.rm(journal.tempDir, { recursive: true })
    expect(total).toBeGreaterThan(0)
    for (let done = 0; done <= total; done++) {
      const dir = await tmpDir('lectern-new-')
      const paths = dataPaths(dir)
      const journal = { tempDir: path.join(dir, '.restore-tmp-x'), preRestoreDir: path.join(dir, 'pre-restore-x'), archive: good, startedAt: 'now' }
      await fsp.cp(await unpack(good), journal.tempDir, { recursive: true })
      fs.writeFileSync(paths.restoreJournal, JSON.stringify(journal))
      fs.mkdirSync(journal.preRestoreDir)
      const moves = pendingMoves(paths, journal)
      // Nothing to set aside: every move brings a restored item in.
      expect(moves.every(([from]) => from.startsWith(journal.tempDir))).toBe(true)
      for (const [from, to] of moves.slice(0, done)) fs.renameSync(from, to)
      const store = await openStore(dir)
      expect(await store.libraries.byId('/acme/widgets'), `after ${done} moves`).toBeTruthy()
      await store.close()
      expect(fs.readdirSync(dir).filter((entry) => entry.startsWith('pre-restore-') || entry.startsWith('.restore-tmp-') || entry === 'restore-journal.json')).toEqual([])
    }
  })

  it('a CLI restore killed with SIGKILL mid-way leaves the old or the new data fully in place, and pre-restore intact', async () => {
    const app = await seededApp()
    await app.runtime.store.settings.set(testSettingKey('bulk'), randomBytes(12 * 1024 * 1024).toString('base64'))
    const big = (await createArchive(app.runtime.store, await tmpDir())).file
    const dir = await currentDataDir()
    const oldKey = fs.readFileSync(path.join(dir, 'secret.key'))
    const child = execa('node', ['bin/run.js', 'restore', big, '--yes', '--data-dir', dir], { cwd: PROJECT_ROOT, reject: false })
    await pollUntil('the restore to start extracting', async () => {
      if (child.exitCode !== null) throw new Error(`restore ended before it was killed: ${(await child).stderr}`)
      return fs.readdirSync(dir).some((f) => f.startsWith('.restore-tmp-') || f.startsWith('pre-restore-')) ? true : undefined
    }, 60_000)
    child.kill('SIGKILL')
    await child
    const store = await openStore(dir)
    onTestFinished(() => store.close())
    const key = fs.readFileSync(path.join(dir, 'secret.key'))
    if (await store.settings.get(testSettingKey('marker')) === 'current') {
      expect(key.equals(oldKey)).toBe(true)
      expect(await store.libraries.byId('/acme/widgets')).toBeUndefined()
    } else {
      expect(await store.libraries.byId('/acme/widgets')).toBeTruthy()
      const [pre] = fs.readdirSync(dir).filter((f) => f.startsWith('pre-restore-'))
      expect(fs.readFileSync(path.join(dir, pre!, 'secret.key')).equals(oldKey)).toBe(true)
    }
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('.restore-tmp-') || f === 'restore-journal.json')).toEqual([])
  }, 90_000)

  it('without --yes and without a terminal, the CLI refuses and says to pass --yes', async () => {
    const dir = await currentDataDir()
    const before = fingerprintDir(dir)
    const res = await runCli(['restore', good, '--data-dir', dir])
    expect(res.exitCode).toBe(9)
    expect(res.stderr).toMatch(/pass --yes/)
    expect(res.stderr).toMatch(/\/acme\/widgets/)
    expect(fingerprintDir(dir)).toEqual(before)
  })

  it('with --yes, the CLI restores', async () => {
    const dir = await currentDataDir()
    const res = await runCli(['restore', good, '--data-dir', dir, '--yes', '--json'])
    expect(res.exitCode, res.stderr).toBe(0)
    expect(JSON.parse(res.stdout)).toMatchObject({ name: path.basename(good), preRestoreDir: expect.stringContaining('pre-restore-') })
  })

  it('into a new data directory, the CLI restores without naming an empty pre-restore directory', async () => {
    const json = path.join(await tmpDir('lectern-new-'), 'data')
    const res = await runCli(['restore', good, '--data-dir', json, '--yes', '--json'])
    expect(res.exitCode, res.stderr).toBe(0)
    expect(JSON.parse(res.stdout)).toMatchObject({ name: path.basename(good), preRestoreDir: null })
    expect(fs.readdirSync(json).filter((entry) => entry.startsWith('pre-restore-'))).toEqual([])
    expect(fs.existsSync(path.join(json, 'lectern.db'))).toBe(true)
    const text = await tmpDir('lectern-new-')
    const told = await runCli(['restore', good, '--data-dir', text, '--yes'])
    expect(told.exitCode, told.stderr).toBe(0)
    expect(`${told.stdout}${told.stderr}`).toContain(`${text} held no data to set aside; start the server to use the restored data.`)
    expect(fs.readdirSync(text).filter((entry) => entry.startsWith('pre-restore-'))).toEqual([])
  })
})

async function countMoves(): Promise<number> {
  const dir = await currentDataDir()
  const journal = { tempDir: path.join(dir, '.t'), preRestoreDir: path.join(dir, 'p'), archive: good, startedAt: 'now' }
  await fsp.cp(await unpack(good), journal.tempDir, { recursive: true })
  return pendingMoves(dataPaths(dir), journal).length
}

/** An archive whose database stops one migration short and whose manifest says Lectern 0.0.1. */
async function olderArchive(): Promise<string> {
  const dir = await tmpDir('lectern-old-')
  const paths = dataPaths(dir)
  fs.mkdirSync(paths.vectors)
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: paths.database }, useNullAsDefault: true })
  await knex.migrate.latest({
    migrationSource: sourceOf(MIGRATIONS.slice(0, -1)),
  })
  await knex.destroy()
  const db = new Database(paths.database)
  const settings = createSettingsRepository(createSqliteSql(db))
  await settings.set(testSettingKey('older'), true)
  const fakeStore = {
    paths,
    settings,
    secrets: createSecretBox(loadOrCreateSecretKey(paths.secretKey)),
    database: { kind: 'sqlite', where: paths.database },
    snapshot: async (file: string) => {
      await snapshotDatabase(paths.database, file)
      return await readSnapshotFacts(file)
    },
  } as unknown as Store
  const archive = await createArchive(fakeStore, path.join(dir, 'out'))
  db.close()
  const unpacked = await unpack(archive.file)
  const file = path.join(await tmpDir(), archive.name)
  await repack(unpacked, file, { edit: (m) => void (m.appVersion = '0.0.1') })
  return file
}
