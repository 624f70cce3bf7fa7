/**
 * Uploaded OpenAPI specs (uploads/) travel in archives: a restored uploaded library can be
 * refreshed, a restore sets the current uploads aside, and uploads are held to the member checks.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { FORMAT_VERSION, SQLITE_FORMAT_VERSION, type Manifest } from '../../src/backup/manifest.js'
import { restoreArchive } from '../../src/backup/restore.js'
import { isLecternError } from '../../src/errors.js'
import { saveUpload } from '../../src/sources/uploads.js'
import { openStore } from '../../src/store/index.js'
import { runCli } from '../helpers/cli.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { fingerprintDir, repack, sha256, unpack } from './helpers.js'

const teardown = suiteTeardown()
const SPEC = fileURLToPath(new URL('../fixtures/openapi/petshop-3.1.yaml', import.meta.url))
const LIBRARY = '/docs/pet-shop'
let archive: string

beforeAll(async () => {
  const source = await tmpDataDir(teardown)
  const added = await runCli(['add', 'openapi', SPEC, '--title', 'Pet Shop', '--wait', '--json', '--data-dir', source])
  expect(added.exitCode, added.stderr).toBe(0)
  const out = await tmpDir('lectern-out-', teardown)
  const backup = await runCli(['backup', '--to', out, '--json', '--data-dir', source])
  expect(backup.exitCode, backup.stderr).toBe(0)
  archive = path.join(out, (JSON.parse(backup.stdout) as { name: string }).name)
}, 60_000)

/** A data dir with its own uploaded spec: what a restore replaces. */
async function currentDataDir(): Promise<string> {
  const dir = await tmpDataDir()
  const store = await openStore(dir)
  await saveUpload(store, 'current', 'yaml', Buffer.from('openapi: 3.1.0\n# the current one\n'))
  await store.close()
  return dir
}

/** The archive rewritten by `edit` (unpacked, changed, packed again) under its own name. */
async function rewritten(edit: (dir: string, manifest: Manifest) => void, opts: { reseal?: boolean } = {}): Promise<string> {
  const dir = await unpack(archive)
  const file = path.join(await tmpDir(), path.basename(archive))
  await repack(dir, file, { edit: (m) => edit(dir, m), reseal: opts.reseal ?? false })
  return file
}

const preRestoreDirs = (dir: string) => fs.readdirSync(dir).filter((f) => f.startsWith('pre-restore-'))

describe('uploaded specs in a backup', () => {
  it('are members listed with their size and sha256', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(await unpack(archive), 'manifest.json'), 'utf8')) as Manifest
    const spec = fs.readFileSync(SPEC)
    expect(manifest.formatVersion).toBe(SQLITE_FORMAT_VERSION)
    expect(manifest.members.find((m) => m.path === 'uploads/pet-shop.yaml')).toEqual({ path: 'uploads/pet-shop.yaml', size: spec.length, sha256: sha256(spec) })
  })

  it('survive a restore into a fresh data dir: the uploaded library refreshes', async () => {
    const dir = await tmpDataDir()
    const restored = await runCli(['restore', archive, '--data-dir', dir, '--yes', '--json'])
    expect(restored.exitCode, restored.stderr).toBe(0)
    expect(fs.readFileSync(path.join(dir, 'uploads', 'pet-shop.yaml')).equals(fs.readFileSync(SPEC))).toBe(true)
    const refreshed = await runCli(['refresh', LIBRARY, '--force', '--wait', '--json', '--data-dir', dir])
    expect(refreshed.exitCode, refreshed.stderr).toBe(0)
    expect(JSON.parse(refreshed.stdout)).toMatchObject({ queued: [{ libraryId: LIBRARY, state: 'succeeded' }] })
  })

  it('replace the current uploads/, which a restore moves into pre-restore-<ts>/', async () => {
    const dir = await currentDataDir()
    const current = fs.readFileSync(path.join(dir, 'uploads', 'current.yaml'))
    const result = await restoreArchive(dir, archive)
    expect(fs.readdirSync(path.join(dir, 'uploads'))).toEqual(['pet-shop.yaml'])
    expect(fs.readFileSync(path.join(result.preRestoreDir!, 'uploads', 'current.yaml')).equals(current)).toBe(true)
  })

  it('are checked like every member: a tampered upload is refused and nothing changes', async () => {
    const tampered = await rewritten((dir) => fs.appendFileSync(path.join(dir, 'uploads', 'pet-shop.yaml'), '# changed\n'))
    const dir = await currentDataDir()
    const before = fingerprintDir(dir)
    const err = await restoreArchive(dir, tampered).catch((e: unknown) => e)
    expect(isLecternError(err) && err.code, String(err)).toBe('archive_invalid')
    expect((err as Error).message).toMatch(/member uploads\/pet-shop\.yaml (is \d+ bytes, more than|does not match its checksum)/)
    expect(fingerprintDir(dir)).toEqual(before)
    expect(preRestoreDirs(dir)).toEqual([])
  })

  it('an upload the manifest does not name is refused and nothing changes', async () => {
    const unpacked = await unpack(archive)
    fs.writeFileSync(path.join(unpacked, 'uploads', 'extra.yaml'), 'openapi: 3.1.0\n')
    const manifest = JSON.parse(fs.readFileSync(path.join(unpacked, 'manifest.json'), 'utf8')) as Manifest
    const file = path.join(await tmpDir(), path.basename(archive))
    await repack(unpacked, file, { members: ['manifest.json', ...manifest.members.map((m) => m.path), 'uploads/extra.yaml'] })
    const dir = await currentDataDir()
    const before = fingerprintDir(dir)
    await expect(restoreArchive(dir, file)).rejects.toThrow(/member uploads\/extra\.yaml is not listed in the manifest/)
    expect(fingerprintDir(dir)).toEqual(before)
  })

  it('an archive of a newer format is refused with "upgrade first"', async () => {
    const newer = await rewritten((_dir, m) => void (m.formatVersion = FORMAT_VERSION + 1))
    const dir = await currentDataDir()
    const before = fingerprintDir(dir)
    await expect(restoreArchive(dir, newer)).rejects.toThrow(/archive format \d+ .*Upgrade first/)
    expect(fingerprintDir(dir)).toEqual(before)
  })

  it('an older archive without uploads restores: the current uploads are set aside, the uploaded library keeps its snippets and asks for its spec again', async () => {
    const older = await rewritten(
      (dir, m) => {
        fs.rmSync(path.join(dir, 'uploads'), { recursive: true })
        m.formatVersion = 1
        m.members = m.members.filter((member) => !member.path.startsWith('uploads/'))
      },
      { reseal: true },
    )
    const dir = await currentDataDir()
    const restored = await runCli(['restore', older, '--data-dir', dir, '--yes', '--json'])
    expect(restored.exitCode, restored.stderr).toBe(0)
    const [pre] = preRestoreDirs(dir)
    expect(fs.readdirSync(path.join(dir, pre!, 'uploads'))).toEqual(['current.yaml'])
    expect(fs.readdirSync(path.join(dir, 'uploads'))).toEqual([])
    const store = await openStore(dir)
    try {
      expect(await store.libraries.version((await store.libraries.byId(LIBRARY))!.pk, '')).toMatchObject({ state: 'finalized' })
    } finally {
      await store.close()
    }
    const refreshed = await runCli(['refresh', LIBRARY, '--force', '--wait', '--json', '--data-dir', dir])
    expect(refreshed.exitCode).not.toBe(0)
    expect(refreshed.stdout + refreshed.stderr).toMatch(/The uploaded spec pet-shop\.yaml is missing; upload it again/)
  })
})
