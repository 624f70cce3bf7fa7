/**
 * Offline licenses: tampered or foreign files are refused with a clear message, expiry is
 * judged against the latest time ever seen (a clock set back does not revive a license),
 * expiry stops import but not backups or admin login, and the cloud issues licenses whose
 * file an install verifies and whose key the export endpoint accepts.
 */
import fs from 'node:fs'
import path from 'node:path'
import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { licenseStatus, installLicense } from '../../src/license/state.js'
import { buildTestApp, createKey } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { sessionCookie } from '../backup/helpers.js'
import { importJson, installTestLicense, licenseKeys, offlineLicense } from './helpers.js'

const payload = { libraries: [{ project: '/acme/one', codeSnippets: [], infoSnippets: [{ content: 'One is a library.' }] }] }
const HOUR = 3_600_000

describe('offline licenses', () => {
  it('refuses a tampered license, one signed by another key, and import without any license', async () => {
    const { privateKey } = licenseKeys()
    const app = await buildTestApp({ startWorker: false })
    const key = await createKey(app)
    const none = await importJson(app, key, payload)
    expect(none.statusCode).toBe(403)
    expect(none.json()).toEqual({ error: 'forbidden', message: expect.stringMatching(/^Library import needs a valid offline license: no license is installed/) })

    const tampered = offlineLicense(privateKey)
    tampered.license.expiresAt = '2199-12-31T23:59:59.999Z'
    await expect(installLicense(app.runtime, JSON.stringify(tampered))).rejects.toThrow(/signature does not match its content/)
    const foreign = offlineLicense(generateKeyPairSync('ed25519').privateKey)
    await expect(installLicense(app.runtime, JSON.stringify(foreign))).rejects.toThrow(/signature does not match/)
    await expect(installLicense(app.runtime, '{"license": 1}')).rejects.toThrow(/expected \{"license"/)

    // A file edited in place after install is refused by the server too, with the reason.
    fs.writeFileSync(app.runtime.store.paths.license, JSON.stringify(tampered))
    const edited = await importJson(app, key, payload)
    expect(edited.statusCode).toBe(403)
    expect(edited.json().message).toMatch(/license\.json: The license is invalid: its signature does not match/)

    await installTestLicense(app, offlineLicense(privateKey, { offline: false }))
    const online = await importJson(app, key, payload)
    expect(online.statusCode).toBe(403)
    expect(online.json().message).toMatch(/needs an offline \(airgapped\) license/)
  })

  it('expires against the latest time seen, so a clock set back does not revive it; backups and login keep working', async () => {
    const { privateKey } = licenseKeys()
    const app = await buildTestApp({ startWorker: false })
    const now = Date.now()
    await installTestLicense(app, offlineLicense(privateKey, { expiresAt: new Date(now + HOUR).toISOString() }))
    const { runtime } = app
    expect((await licenseStatus(runtime, now)).state).toBe('valid')
    expect((await licenseStatus(runtime, now + 2 * HOUR)).state).toBe('expired')
    // The clock goes back: still expired.
    const rolledBack = await licenseStatus(runtime, now)
    expect(rolledBack).toMatchObject({ state: 'expired', reason: expect.stringMatching(/expired on .* \(latest time seen /) })

    const res = await importJson(app, await createKey(app), payload)
    expect(res.statusCode).toBe(403)
    expect(res.json().message).toMatch(/the license of Acme Corp expired on/)
    const admin = await sessionCookie(app, 'admin')
    expect((await app.inject({ url: '/api/backup/status', headers: { cookie: admin } })).statusCode).toBe(200)
    expect((await app.inject({ url: '/api/backups', headers: { cookie: admin } })).statusCode).toBe(200)
  })

  it('is issued by the cloud CLI and installed and shown by the install CLI', async () => {
    const cloudDir = await tmpDataDir()
    const installDir = await tmpDataDir()
    const work = await tmpDir()
    const file = path.join(work, 'acme-license.json')
    const issued = await runCli(['license', 'issue', '--customer', 'Acme Corp', '--offline', '--expires', '2099-12-31', '-o', file, '--mode', 'cloud'], { LECTERN_DATA_DIR: cloudDir })
    expect(issued.exitCode).toBe(0)
    expect(issued.stdout).toMatch(/License key \(shown once.*\): lctl_[A-Za-z0-9_-]{32}/)
    const pem = (await runCli(['license', 'issue', '--public-key', '--mode', 'cloud'], { LECTERN_DATA_DIR: cloudDir })).stdout
    expect(pem).toMatch(/BEGIN PUBLIC KEY/)
    // The signing key is stored sealed, never as plain PEM.
    const db = fs.readFileSync(path.join(cloudDir, 'lectern.db')).toString('latin1')
    expect(db).not.toMatch(/BEGIN PRIVATE KEY/)

    const env = { LECTERN_DATA_DIR: installDir, LECTERN_LICENSE_PUBLIC_KEY: pem }
    const installed = await runCli(['license', 'install', file], env)
    expect(installed.exitCode, installed.stderr).toBe(0)
    expect(installed.stderr).toBe('')
    expect(installed.stdout).toMatch(/Installed the offline enterprise license of Acme Corp, valid until 2099-12-31T23:59:59.999Z/)
    const shown = JSON.parse((await runCli(['license', 'show', '--json'], env)).stdout) as { state: string; license: { customer: string; offline: boolean } }
    expect(shown).toMatchObject({ state: 'valid', license: { customer: 'Acme Corp', offline: true } })
  }, 90_000)
})
