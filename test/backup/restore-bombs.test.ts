/**
 * Decompression bombs against `lectern restore`: archives built here, streamed to disk (a few MB
 * that inflate to 4 GiB), never committed. Each is refused as archive_invalid with nothing
 * changed, quickly, and the restore process's peak RSS stays within 100 MB of what the same
 * command needs to refuse a small damaged archive.
 */
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { execa } from 'execa'
import * as tar from 'tar'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { createArchive } from '../../src/backup/archive.js'
import type { Manifest } from '../../src/backup/manifest.js'
import { openStore } from '../../src/store/index.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { testSettingKey } from '../helpers/settings.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { fingerprintDir, seededApp } from './helpers.js'

vi.setConfig({ testTimeout: 120_000 })

const teardown = suiteTeardown()
const GIB = 1024 ** 3
const MIB = 1024 ** 2
let good: string
let manifest: Manifest
let baselineKb: number

/**
 * 1 MiB that gzips to about 2 KB: a ratio near 500, under the 1000 at which node-tar gives up on
 * its own. Concatenated gzip members inflate to their concatenation, so a bomb is cheap to build.
 */
const MEBIBYTE = gzipSync(Buffer.concat([randomBytes(1024), Buffer.alloc(MIB - 1024)]), { level: 9 })

/** One 512-byte tar header block. */
function header(name: string, size: number): Buffer {
  const block = Buffer.alloc(512)
  new tar.Header({ path: name, type: 'File', size, mode: 0o600, mtime: new Date(0) }).encode(block, 0)
  return block
}

const padded = (data: Buffer) => Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)])

/** Writes `head` gzipped, then `mebibytes` gzip members of 1 MiB each, as a stream. */
async function writeBomb(head: Buffer, mebibytes: number): Promise<string> {
  const file = path.join(await tmpDir('lectern-bomb-', teardown), 'lectern-backup-2030-01-01T00-00-00.tar.gz')
  const out = fs.createWriteStream(file)
  out.write(gzipSync(head))
  for (let i = 0; i < mebibytes; i++) if (!out.write(MEBIBYTE)) await once(out, 'drain')
  out.end()
  await once(out, 'close')
  return file
}

/** Runs the real `lectern restore --yes --json` under GNU time; its result and peak RSS. */
async function restoreMeasured(archive: string) {
  const dataDir = await tmpDir('lectern-data-', teardown)
  const store = await openStore(dataDir)
  await store.settings.set(testSettingKey('marker'), 'current')
  await store.close()
  const before = fingerprintDir(dataDir)
  const started = Date.now()
  const run = await execa('/usr/bin/time', ['-v', 'node', 'bin/run.js', 'restore', archive, '--yes', '--json', '--data-dir', dataDir], {
    cwd: PROJECT_ROOT,
    reject: false,
    timeout: 90_000,
    env: { NO_COLOR: '1' },
  })
  const peakKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr)?.[1])
  return { run, peakKb, seconds: (Date.now() - started) / 1000, unchanged: JSON.stringify(fingerprintDir(dataDir)) === JSON.stringify(before), dataDir }
}

beforeAll(async () => {
  const app = await seededApp({ defer: teardown })
  good = (await createArchive(app.runtime.store, await tmpDir('lectern-out-', teardown))).file
  const unpacked = await tmpDir('lectern-unpack-', teardown)
  await tar.x({ file: good, cwd: unpacked })
  manifest = JSON.parse(fs.readFileSync(path.join(unpacked, 'manifest.json'), 'utf8')) as Manifest
  // What the same command needs to refuse a small damaged archive: the reference for the bound.
  const truncated = path.join(await tmpDir('lectern-bad-', teardown), path.basename(good))
  const bytes = fs.readFileSync(good)
  fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)))
  const baseline = await restoreMeasured(truncated)
  expect(baseline.run.exitCode, baseline.run.stderr).toBe(9)
  baselineKb = baseline.peakKb
})

function expectRefusedWithinBounds(result: Awaited<ReturnType<typeof restoreMeasured>>, message: RegExp) {
  expect(result.run.exitCode, result.run.stderr).toBe(9)
  const body = JSON.parse(result.run.stdout) as { error: string; message: string }
  expect(body).toMatchObject({ error: 'archive_invalid', message: expect.stringMatching(message) })
  expect(result.unchanged).toBe(true)
  expect(fs.readdirSync(result.dataDir).filter((f) => f.includes('restore'))).toEqual([])
  expect(result.peakKb, `peak RSS ${result.peakKb} KB against ${baselineKb} KB refusing a small archive`).toBeLessThan(baselineKb + 100 * 1024)
  // Refused as soon as the lie shows, not after inflating gigabytes.
  expect(result.seconds).toBeLessThan(30)
}

describe('restore refuses decompression bombs in bounded memory', () => {
  it('a member whose tar header claims 4 GiB where the manifest records a few KB', async () => {
    const body = padded(Buffer.from(JSON.stringify(manifest)))
    const bomb = await writeBomb(Buffer.concat([header('manifest.json', JSON.stringify(manifest).length), body, header('lectern.db', 4 * GIB)]), 4096)
    const result = await restoreMeasured(bomb)
    expectRefusedWithinBounds(result, new RegExp(`member lectern\\.db is ${4 * GIB} bytes, more than the ${manifest.members[0]!.size} its manifest records`))
  })

  it('a manifest that declares 4 GiB from a few MB of archive (over the ratio limit)', async () => {
    const declared = { ...manifest, members: manifest.members.map((m) => (m.path === 'lectern.db' ? { ...m, size: 4 * GIB } : m)) }
    const text = JSON.stringify(declared)
    const bomb = await writeBomb(Buffer.concat([header('manifest.json', text.length), padded(Buffer.from(text)), header('lectern.db', 4 * GIB)]), 4096)
    const result = await restoreMeasured(bomb)
    expectRefusedWithinBounds(result, /its manifest declares \d+ bytes unpacked from a \d+-byte archive, more than 200 times its size/)
  })

  it('a valid archive followed by 4 GiB of padding', async () => {
    const bomb = path.join(await tmpDir('lectern-bomb-', teardown), path.basename(good))
    fs.copyFileSync(good, bomb)
    const out = fs.createWriteStream(bomb, { flags: 'a' })
    for (let i = 0; i < 4096; i++) if (!out.write(MEBIBYTE)) await once(out, 'drain')
    out.end()
    await once(out, 'close')
    const result = await restoreMeasured(bomb)
    expectRefusedWithinBounds(result, /it unpacks to more than the \d+ bytes its manifest accounts for/)
  })
})
