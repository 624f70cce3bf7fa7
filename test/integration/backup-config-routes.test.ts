/**
 * The routes the dashboard's Backups page adds: testing a destination before saving it (a real
 * directory, and S3 against s3rver on 127.0.0.1) and the next run times of a schedule.
 */
import fs from 'node:fs'
import path from 'node:path'
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
// s3rver ships no types.
// @ts-expect-error untyped module
import S3rver from 's3rver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { s3ClientConfig } from '../../src/backup/destinations.js'
import { sessionCookie } from '../backup/helpers.js'
import { buildTestApp } from '../helpers/app.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

const teardown = suiteTeardown()
let endpoint: string
let s3rver: { run(): Promise<{ port: number }>; close(): Promise<void> }

beforeAll(async () => {
  s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: await tmpDir('lectern-s3rver-', teardown), configureBuckets: [{ name: 'bk' }] })
  endpoint = `http://127.0.0.1:${(await s3rver.run()).port}`
})
afterAll(async () => s3rver.close())

const SECRET = 'S3RVER'
const s3 = (bucket: string, extra: object = {}) => ({ type: 's3', bucket, region: 'eu-west-1', accessKeyId: 'S3RVER', endpoint, forcePathStyle: true, prefix: 'team', ...extra })

describe('POST /api/backup/config/test', () => {
  it('answers 401 without a session and 403 for a member, on both new routes', async () => {
    const app = await buildTestApp({ startWorker: false })
    const member = await sessionCookie(app, 'member')
    for (const request of [
      { method: 'POST' as const, url: '/api/backup/config/test', payload: { type: 'dir' } },
      { method: 'GET' as const, url: '/api/backup/schedule/next?expression=daily' },
    ]) {
      expect((await app.inject(request)).json()).toMatchObject({ error: 'not_authenticated' })
      const forbidden = await app.inject({ ...request, headers: { cookie: member } })
      expect([forbidden.statusCode, forbidden.json().error]).toEqual([403, 'forbidden'])
    }
  })

  it('probes a directory: writable answers ok and leaves nothing behind, a file or unwritable path is a 400 naming it', async () => {
    const app = await buildTestApp({ startWorker: false })
    const admin = await sessionCookie(app, 'admin')
    const probe = (payload: object) => app.inject({ method: 'POST', url: '/api/backup/config/test', headers: { cookie: admin }, payload })
    const dir = await tmpDir()
    const ok = await probe({ type: 'dir', path: dir })
    expect([ok.statusCode, ok.json()]).toEqual([200, { ok: true }])
    expect(fs.readdirSync(dir)).toEqual([])
    // null is the data directory's backups/, created as a backup would.
    expect((await probe({ type: 'dir', path: null })).json()).toEqual({ ok: true })
    expect(fs.existsSync(app.runtime.store.paths.backups)).toBe(true)

    const file = path.join(dir, 'a-file')
    fs.writeFileSync(file, 'x')
    const onFile = await probe({ type: 'dir', path: file })
    expect([onFile.statusCode, onFile.json().error]).toEqual([400, 'validation_error'])
    expect(onFile.json().message).toContain(file)
    const readOnly = path.join(dir, 'read-only')
    fs.mkdirSync(readOnly, { mode: 0o500 })
    if (process.getuid?.() !== 0) {
      const refused = await probe({ type: 'dir', path: readOnly })
      expect([refused.statusCode, refused.json().error]).toEqual([400, 'validation_error'])
      expect(refused.json().message).toMatch(/EACCES/)
    }
    // Nothing was saved by any probe.
    expect((await app.inject({ url: '/api/backup/config', headers: { cookie: admin } })).json().destination).toEqual({ type: 'dir', path: app.runtime.store.paths.backups })
  })

  it('probes S3: the right bucket answers ok and leaves no object, a wrong bucket is a 400 with the store’s reason; secrets never echo', async () => {
    const app = await buildTestApp({ startWorker: false })
    const admin = await sessionCookie(app, 'admin')
    const probe = (payload: object) => app.inject({ method: 'POST', url: '/api/backup/config/test', headers: { cookie: admin }, payload })

    const raw = new S3Client(s3ClientConfig({ bucket: 'bk', region: 'eu-west-1', accessKeyId: 'S3RVER', secretAccessKey: SECRET, endpoint, forcePathStyle: true, prefix: '' }))
    // Archives already under the prefix: the listing must cope with more than one object.
    const archives = ['team/lectern-backup-2026-01-01T00-00-00.tar.gz', 'team/lectern-backup-2026-01-02T00-00-00.tar.gz']
    for (const Key of archives) await raw.send(new PutObjectCommand({ Bucket: 'bk', Key, Body: 'x' }))
    const ok = await probe(s3('bk', { secretAccessKey: SECRET }))
    expect([ok.statusCode, ok.json()]).toEqual([200, { ok: true }])
    expect((await raw.send(new ListObjectsV2Command({ Bucket: 'bk' }))).Contents?.map((o) => o.Key)).toEqual(archives)

    const wrongBucket = await probe(s3('no-such-bucket', { secretAccessKey: SECRET }))
    expect([wrongBucket.statusCode, wrongBucket.json().error]).toEqual([400, 'validation_error'])
    expect(wrongBucket.json().message).toContain('s3://no-such-bucket/team/ cannot be listed: NoSuchBucket')

    // A secret sent is never echoed, in success or failure.
    const sent = await probe(s3('no-such-bucket', { secretAccessKey: 'sent-secret-xyz' }))
    expect(sent.statusCode).toBe(400)
    expect(sent.body).not.toContain('sent-secret-xyz')

    // Left out, the secret is the stored one (s3rver does not check secrets: this shows the probe runs with it).
    await app.inject({ method: 'PUT', url: '/api/backup/config', headers: { cookie: admin }, payload: { destination: s3('bk', { secretAccessKey: SECRET }) } })
    expect((await probe(s3('bk'))).json()).toEqual({ ok: true })
  })

  it('refuses bad input with 400 validation_error', async () => {
    const app = await buildTestApp({ startWorker: false })
    const admin = await sessionCookie(app, 'admin')
    for (const bad of [
      {},
      { type: 'ftp' },
      { type: 'dir', path: 'relative/dir' },
      { type: 'dir', path: '/tmp', extra: true },
      { type: 's3', bucket: '' },
      { type: 's3', bucket: 'bk', endpoint: 'not a url' },
      { destination: { type: 'dir' } },
    ]) {
      const res = await app.inject({ method: 'POST', url: '/api/backup/config/test', headers: { cookie: admin }, payload: bad })
      expect([JSON.stringify(bad), res.statusCode, res.json().error]).toEqual([JSON.stringify(bad), 400, 'validation_error'])
    }
  })
})

describe('GET /api/backup/schedule/next', () => {
  it('lists the next three runs of a preset or cron expression in its time zone, with the presets', async () => {
    const app = await buildTestApp({ startWorker: false })
    const admin = await sessionCookie(app, 'admin')
    const next = async (expression: string, timeZone?: string) => {
      const res = await app.inject({ url: `/api/backup/schedule/next?${new URLSearchParams({ expression, ...(timeZone ? { timeZone } : {}) })}`, headers: { cookie: admin } })
      expect([expression, res.statusCode, res.body]).toEqual([expression, 200, expect.any(String)])
      return res.json() as { presets: Record<string, string>; next: string[] }
    }
    const daily = await next('daily', 'Europe/Berlin')
    expect(daily.presets).toEqual({ daily: '0 2 * * *', 'every-6-hours': '0 */6 * * *', weekly: '0 3 * * 0' })
    expect(daily.next).toHaveLength(3)
    const times = daily.next.map((iso) => new Date(iso))
    expect(times[0]!.getTime()).toBeGreaterThan(Date.now())
    for (const t of times) {
      expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }).format(t)).toBe('02:00')
    }
    expect(times[1]!.getTime() - times[0]!.getTime()).toBeGreaterThanOrEqual(23 * 3600_000)

    // Day of month AND day of week, as node-cron fires it: Friday the 13th only.
    for (const iso of (await next('0 12 13 * 5')).next) {
      const d = new Date(iso)
      expect([d.getUTCDate(), d.getUTCDay(), d.getUTCHours()]).toEqual([13, 5, 12])
    }
    const stepped = (await next('10-50/20 * * * *')).next.map((iso) => new Date(iso).getUTCMinutes())
    expect(stepped.every((m) => [10, 30, 50].includes(m))).toBe(true)
  })

  it('refuses a bad expression, an unknown time zone or a missing expression with 400', async () => {
    const app = await buildTestApp({ startWorker: false })
    const admin = await sessionCookie(app, 'admin')
    for (const qs of ['expression=0+0+31+2+*', 'expression=61+*+*+*+*', 'expression=hourly-ish', 'expression=daily&timeZone=Mars%2FOlympus', '', 'expression=']) {
      const res = await app.inject({ url: `/api/backup/schedule/next?${qs}`, headers: { cookie: admin } })
      expect([qs, res.statusCode, res.json().error]).toEqual([qs, 400, 'validation_error'])
    }
  })
})
