import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.js'
import { pollUntil } from '../helpers/poll.js'
import { tmpDir } from '../helpers/tmp.js'
import { seededApp, sessionCookie } from './helpers.js'

const NAME = 'lectern-backup-2026-01-01T00-00-00.tar.gz'
const ENDPOINTS: Array<{ method: 'GET' | 'POST' | 'PUT'; url: string }> = [
  { method: 'POST', url: '/api/backup' },
  { method: 'GET', url: '/api/backup/status' },
  { method: 'GET', url: '/api/backups' },
  { method: 'GET', url: `/api/backups/${NAME}/download` },
  { method: 'GET', url: '/api/backup/config' },
  { method: 'PUT', url: '/api/backup/config' },
  { method: 'POST', url: `/api/backups/${NAME}/restore?dryRun=true` },
  { method: 'POST', url: `/api/backups/${NAME}/restore` },
]

describe('backup endpoints', () => {
  it('answer 401 without a session and 403 for a non-admin, on every endpoint', async () => {
    const app = await buildTestApp({ startWorker: false })
    const member = await sessionCookie(app, 'member')
    for (const { method, url } of ENDPOINTS) {
      const anonymous = await app.inject({ method, url, payload: method === 'PUT' ? {} : undefined })
      expect([url, anonymous.statusCode, anonymous.json().error]).toEqual([url, 401, 'not_authenticated'])
      const forbidden = await app.inject({ method, url, headers: { cookie: member }, payload: method === 'PUT' ? {} : undefined })
      expect([url, forbidden.statusCode, forbidden.json().error]).toEqual([url, 403, 'forbidden'])
    }
  })

  it('run a backup in the background (202), refuse a second one while it runs (409 with its start time), list and download it', async () => {
    const app = await seededApp()
    const admin = await sessionCookie(app, 'admin')
    const first = await app.inject({ method: 'POST', url: '/api/backup', headers: { cookie: admin } })
    expect(first.statusCode).toBe(202)
    const { startedAt } = first.json() as { startedAt: string }
    const second = await app.inject({ method: 'POST', url: '/api/backup', headers: { cookie: admin } })
    expect(second.statusCode).toBe(409)
    expect(second.json()).toMatchObject({ error: 'backup_running', startedAt })
    expect(second.json().message).toContain(startedAt)

    const status = await pollUntil('the backup to finish', async () => {
      const res = await app.inject({ url: '/api/backup/status', headers: { cookie: admin } })
      const body = res.json() as { running: boolean; last: { ok: boolean; name: string } | null }
      return body.running ? undefined : body
    })
    expect(status.last).toMatchObject({ ok: true, trigger: 'manual', destination: `dir:${app.runtime.store.paths.backups}` })
    const list = (await app.inject({ url: '/api/backups', headers: { cookie: admin } })).json() as { backups: Array<{ name: string; size: number }> }
    expect(list.backups.map((b) => b.name)).toEqual([status.last!.name])

    const download = await app.inject({ url: `/api/backups/${status.last!.name}/download`, headers: { cookie: admin } })
    expect(download.statusCode).toBe(200)
    expect(download.headers['content-type']).toBe('application/gzip')
    expect(download.rawPayload.equals(fs.readFileSync(path.join(app.runtime.store.paths.backups, status.last!.name)))).toBe(true)

    const dryRun = await app.inject({ method: 'POST', url: `/api/backups/${status.last!.name}/restore?dryRun=true`, headers: { cookie: admin } })
    expect(dryRun.statusCode).toBe(200)
    expect(dryRun.json()).toMatchObject({ dryRun: true, name: status.last!.name, libraries: expect.arrayContaining([expect.objectContaining({ id: '/acme/widgets' })]) })
    expect(fs.existsSync(app.runtime.store.paths.restoreStaged)).toBe(false)

    const staged = await app.inject({ method: 'POST', url: `/api/backups/${status.last!.name}/restore`, headers: { cookie: admin } })
    expect(staged.statusCode).toBe(202)
    expect(staged.json().message).toMatch(/Restart Lectern/)
    expect(fs.readdirSync(app.runtime.store.paths.restoreStaged)).toEqual([status.last!.name])
  })

  it('validate archive names: a bad pattern or .. is a 400, an unknown archive a 404', async () => {
    const app = await buildTestApp({ startWorker: false })
    const admin = await sessionCookie(app, 'admin')
    for (const name of ['..%2F..%2Fetc%2Fpasswd', 'lectern-backup-x.tar.gz', '..', 'lectern.db']) {
      const res = await app.inject({ url: `/api/backups/${name}/download`, headers: { cookie: admin } })
      expect([name, res.statusCode]).toEqual([name, res.statusCode === 404 && res.json().error === 'not_found' ? 404 : 400])
    }
    const missing = await app.inject({ url: `/api/backups/${NAME}/download`, headers: { cookie: admin } })
    expect(missing.json()).toMatchObject({ error: 'backup_not_found' })
  })

  it('read and update the config; the S3 secret is never returned, only secretSet', async () => {
    const app = await buildTestApp({ startWorker: false })
    const admin = await sessionCookie(app, 'admin')
    const put = (payload: object) => app.inject({ method: 'PUT', url: '/api/backup/config', headers: { cookie: admin }, payload })
    const initial = (await app.inject({ url: '/api/backup/config', headers: { cookie: admin } })).json()
    expect(initial).toEqual({ destination: { type: 'dir', path: app.runtime.store.paths.backups }, schedule: null, retention: { keep: 'all' } })

    const s3 = await put({ destination: { type: 's3', bucket: 'bk', accessKeyId: 'AK', secretAccessKey: 'very-secret', prefix: 'lectern' }, schedule: { expression: 'daily', timeZone: 'Europe/Berlin' }, retention: { keep: 3 } })
    expect(s3.statusCode).toBe(200)
    expect(JSON.stringify(s3.json())).not.toContain('very-secret')
    expect(s3.json()).toEqual({
      destination: { type: 's3', bucket: 'bk', region: 'us-east-1', accessKeyId: 'AK', endpoint: '', forcePathStyle: false, prefix: 'lectern/', secretSet: true },
      schedule: { expression: 'daily', timeZone: 'Europe/Berlin' },
      retention: { keep: 3 },
    })
    const read = (await app.inject({ url: '/api/backup/config', headers: { cookie: admin } })).body
    expect(read).not.toContain('very-secret')
    expect(JSON.stringify(await app.runtime.store.settings.get('backup.config'))).not.toContain('very-secret')

    for (const bad of [
      { schedule: { expression: '0 0 31 2 *' } },
      { schedule: { expression: '61 * * * *' } },
      { schedule: { expression: '* * * *' } },
      { schedule: { expression: 'hourly-ish' } },
      { schedule: { expression: 'daily', timeZone: 'Mars/Olympus' } },
      { retention: { keep: 0 } },
      { destination: { type: 'dir', path: 'relative/dir' } },
      { destination: { type: 's3', bucket: '' } },
    ]) {
      const res = await put(bad)
      expect([JSON.stringify(bad), res.statusCode, res.json().error]).toEqual([JSON.stringify(bad), 400, 'validation_error'])
    }
    const dir = await tmpDir()
    expect((await put({ destination: { type: 'dir', path: dir }, schedule: { expression: '30 1 29 2 *' } })).json()).toMatchObject({ destination: { type: 'dir', path: dir } })
  })
})
