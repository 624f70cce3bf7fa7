/** A dashboard restore end to end with real `lectern serve` processes. */
import fs from 'node:fs'
import { execa } from 'execa'
import { describe, expect, it, onTestFinished } from 'vitest'
import { RESTORE_FAILED_EXIT_CODE, RESTORE_STAGED_EXIT_CODE } from '../../server/serve.js'
import { saveUpload } from '../../src/sources/uploads.js'
import { openStore } from '../../src/store/index.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { freePort, GRACEFUL_STOP } from '../helpers/server.js'
import { testSettingKey } from '../helpers/settings.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { PASSWORD } from './helpers.js'

async function serve(dataDir: string, extra: string[]) {
  const port = await freePort()
  const child = execa('node', ['bin/run.js', 'serve', '--data-dir', dataDir, '--port', String(port), '--log-level', 'warn', ...extra], { cwd: PROJECT_ROOT, stdin: 'ignore', reject: false, ...GRACEFUL_STOP })
  onTestFinished(async () => {
    if (child.exitCode === null) child.kill('SIGKILL')
    await child
  })
  const url = `http://127.0.0.1:${port}`
  await waitReady(url, child)
  return { url, child }
}

async function waitReady(url: string, child: { exitCode: number | null }) {
  await pollUntil(`${url}/api/ready`, async () => {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
    return (await fetch(`${url}/api/ready`).catch(() => undefined))?.status === 200 ? true : undefined
    // Generous: a server start takes seconds when the machine is busy with other suites.
  }, 45_000)
}

/** A data dir with an admin, a backup of it taken through the API, then a change made after the backup. */
async function backedUp(url: string) {
  const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ops@example.com', password: PASSWORD }) })
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!
  expect((await fetch(`${url}/api/backup`, { method: 'POST', headers: { cookie } })).status).toBe(202)
  const name = await pollUntil('the backup', async () => {
    const status = (await (await fetch(`${url}/api/backup/status`, { headers: { cookie } })).json()) as { running: boolean; last?: { name?: string } }
    return status.running ? undefined : status.last?.name
  })
  return { cookie, name }
}

async function prepare(): Promise<string> {
  const dataDir = await tmpDataDir()
  const store = await openStore(dataDir)
  await store.users.create({ email: 'ops@example.com', password: PASSWORD, role: 'admin' })
  await store.settings.set(testSettingKey('marker'), 'before-backup')
  await saveUpload(store, 'spec', 'yaml', Buffer.from('before-backup'))
  await store.close()
  return dataDir
}

async function markAfterBackup(dataDir: string) {
  const store = await openStore(dataDir)
  await store.settings.set(testSettingKey('marker'), 'after-backup')
  await saveUpload(store, 'spec', 'yaml', Buffer.from('after-backup'))
  await saveUpload(store, 'later', 'yaml', Buffer.from('after-backup'))
  await store.close()
}

/** The uploaded specs of the data dir and of its pre-restore-* directory, by name and content. */
function uploads(dataDir: string) {
  const read = (dir: string) => Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(`${dir}/${f}`, 'utf8')]))
  const [pre] = fs.readdirSync(dataDir).filter((f) => f.startsWith('pre-restore-'))
  return { current: read(`${dataDir}/uploads`), setAside: read(`${dataDir}/${pre}/uploads`) }
}

async function lastRestore(url: string) {
  const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ops@example.com', password: PASSWORD }) })
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!
  const status = (await (await fetch(`${url}/api/backup/status`, { headers: { cookie } })).json()) as { lastRestore: unknown }
  return status.lastRestore
}

/** Damages the staged archive in place, as a bad disk could between the staging and the next start. */
function damageStaged(dataDir: string, name: string) {
  const file = `${dataDir}/restore-staged/${name}`
  const bytes = fs.readFileSync(file)
  fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)))
}

/** The audit log's newest actions, with who acted. */
async function auditTrail(dataDir: string, count: number) {
  const store = await openStore(dataDir)
  try {
    return (await store.audit.list({}, { limit: count })).map((e) => [e.action, e.actor.name])
  } finally {
    await store.close()
  }
}

/** A staged restore's trail: its staging and the backup made before it, carried over from the data set aside, then the restore. */
const RESTORED_TRAIL = [
  ['restore.applied', null],
  ['restore.staged', 'ops@example.com'],
  ['backup.created', 'ops@example.com'],
  ['signin.succeeded', 'ops@example.com'],
]

async function marker(dataDir: string) {
  const store = await openStore(dataDir)
  try {
    return await store.settings.get(testSettingKey('marker'))
  } finally {
    await store.close()
  }
}

/** Backs up, changes the data, stages the backup's restore as the dashboard does, and waits until the server, restarted on it, is ready. */
async function restoreFromTheDashboard(url: string, child: Parameters<typeof waitReady>[1], dataDir: string): Promise<void> {
  const { cookie, name } = await backedUp(url)
  await markAfterBackup(dataDir)
  expect((await fetch(`${url}/api/backups/${name}/restore`, { method: 'POST', headers: { cookie } })).status).toBe(202)
  await pollUntil('the staged restore to be applied', () => (fs.readdirSync(dataDir).some((f) => f.startsWith('pre-restore-')) ? true : undefined))
  await waitReady(url, child)
  expect(child.exitCode).toBeNull()
}

describe('lectern serve and a staged restore', () => {
  it('by default restarts in the same process and applies the restore', { timeout: 120_000 }, async () => {
    const dataDir = await prepare()
    const { url, child } = await serve(dataDir, [])
    await restoreFromTheDashboard(url, child, dataDir)
    expect(fs.existsSync(`${dataDir}/restore-staged`)).toBe(false)
    expect(await marker(dataDir)).toBe('before-backup')
    expect(uploads(dataDir)).toEqual({ current: { 'spec.yaml': 'before-backup' }, setAside: { 'spec.yaml': 'after-backup', 'later.yaml': 'after-backup' } })
    child.kill('SIGTERM')
    expect((await child).exitCode).toBe(0)
    expect(await auditTrail(dataDir, 4)).toEqual(RESTORED_TRAIL)
  })

  it('with --workers 2, every worker stops, the primary applies the restore, and the workers start again', { timeout: 120_000 }, async () => {
    const dataDir = await prepare()
    const { url, child } = await serve(dataDir, ['--workers', '2'])
    const workers = () => fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number).sort()
    const before = workers()
    expect(before).toHaveLength(2)
    await restoreFromTheDashboard(url, child, dataDir)
    const after = workers()
    expect(after).toHaveLength(2)
    expect(after.filter((pid) => before.includes(pid))).toEqual([])
    expect(await marker(dataDir)).toBe('before-backup')
    expect(uploads(dataDir)).toEqual({ current: { 'spec.yaml': 'before-backup' }, setAside: { 'spec.yaml': 'after-backup', 'later.yaml': 'after-backup' } })
    child.kill('SIGTERM')
    expect((await child).exitCode).toBe(0)
    expect(await auditTrail(dataDir, 4)).toEqual(RESTORED_TRAIL)
  })

  it('with --no-supervise exits with the documented code and applies the restore at the next start', { timeout: 120_000 }, async () => {
    const dataDir = await prepare()
    const first = await serve(dataDir, ['--no-supervise'])
    const { cookie, name } = await backedUp(first.url)
    await markAfterBackup(dataDir)
    expect((await fetch(`${first.url}/api/backups/${name}/restore`, { method: 'POST', headers: { cookie } })).status).toBe(202)
    expect((await first.child).exitCode).toBe(RESTORE_STAGED_EXIT_CODE)
    expect(await marker(dataDir)).toBe('after-backup')

    const second = await serve(dataDir, ['--no-supervise'])
    second.child.kill('SIGTERM')
    await second.child
    expect(fs.existsSync(`${dataDir}/restore-staged`)).toBe(false)
    expect(fs.readdirSync(dataDir).filter((f) => f.startsWith('pre-restore-'))).toHaveLength(1)
    expect(await marker(dataDir)).toBe('before-backup')
    expect(uploads(dataDir)).toEqual({ current: { 'spec.yaml': 'before-backup' }, setAside: { 'spec.yaml': 'after-backup', 'later.yaml': 'after-backup' } })
  })

  it('with --no-supervise, a staged restore that fails to apply exits with its own code, keeps the data, and is reported', { timeout: 120_000 }, async () => {
    const dataDir = await prepare()
    const first = await serve(dataDir, ['--no-supervise'])
    const { cookie, name } = await backedUp(first.url)
    await markAfterBackup(dataDir)
    expect((await fetch(`${first.url}/api/backups/${name}/restore`, { method: 'POST', headers: { cookie } })).status).toBe(202)
    expect((await first.child).exitCode).toBe(RESTORE_STAGED_EXIT_CODE)
    damageStaged(dataDir, name)

    const failed = await execa('node', ['bin/run.js', 'serve', '--data-dir', dataDir, '--port', String(await freePort()), '--no-supervise', '--log-format', 'json'], { cwd: PROJECT_ROOT, stdin: 'ignore', reject: false, timeout: 60_000 })
    expect(failed.exitCode, failed.stderr).toBe(RESTORE_FAILED_EXIT_CODE)
    const lines = failed.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { level: number; msg: string; archive?: string })
    expect(lines).toContainEqual(expect.objectContaining({ level: 50, archive: name, msg: expect.stringMatching(/staged restore could not be applied, the data is unchanged: .*damaged/) }))
    expect(await marker(dataDir)).toBe('after-backup')
    expect(fs.readFileSync(`${dataDir}/uploads/spec.yaml`, 'utf8')).toBe('after-backup')
    expect(fs.existsSync(`${dataDir}/restore-staged`)).toBe(false)
    expect(fs.readdirSync(dataDir).filter((f) => f.startsWith('restore-staged.failed-'))).toHaveLength(1)

    // The restart a service manager does next runs on the current data and reports the failure.
    const third = await serve(dataDir, ['--no-supervise'])
    expect(await lastRestore(third.url)).toMatchObject({ state: 'failed', archive: name, code: 'archive_invalid', reason: expect.stringMatching(/damaged/) })
    expect(await marker(dataDir)).toBe('after-backup')
  })

  it('supervised, a staged restore that fails to apply is reported and the server runs on the current data', { timeout: 120_000 }, async () => {
    const dataDir = await prepare()
    const first = await serve(dataDir, ['--no-supervise'])
    const { cookie, name } = await backedUp(first.url)
    expect((await fetch(`${first.url}/api/backups/${name}/restore`, { method: 'POST', headers: { cookie } })).status).toBe(202)
    expect((await first.child).exitCode).toBe(RESTORE_STAGED_EXIT_CODE)
    await markAfterBackup(dataDir)
    damageStaged(dataDir, name)

    const second = await serve(dataDir, [])
    expect(await lastRestore(second.url)).toMatchObject({ state: 'failed', archive: name, code: 'archive_invalid' })
    expect(second.child.exitCode).toBeNull()
    expect(await marker(dataDir)).toBe('after-backup')
    // Newest first: the sign-in of lastRestore, the failure, and the staging it failed to apply.
    expect(await auditTrail(dataDir, 3)).toEqual([['signin.succeeded', 'ops@example.com'], ['restore.failed', null], ['restore.staged', 'ops@example.com']])
  })
})
