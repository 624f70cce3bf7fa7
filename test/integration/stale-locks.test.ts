/**
 * The data-directory and backup locks die with their process: a server or a backup killed with
 * SIGKILL leaves nothing that blocks the next start, whatever the holder file left beside the lock
 * says (another host after a container moved, or this host's pid 1: a restarted container whose
 * server is PID 1 again). Live holders still refuse each other, across processes and within one.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import { hostname } from 'node:os'
import path from 'node:path'
import { execa } from 'execa'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import type { BackupStatus } from '../../src/backup/runner.js'
import { isLecternError } from '../../src/errors.js'
import { openStore } from '../../src/store/index.js'
import { acquireDataDirLock, lockState } from '../../src/store/lock.js'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { freePort, startServer } from '../helpers/server.js'
import { testSettingKey } from '../helpers/settings.js'
import { tmpDataDir } from '../helpers/tmp.js'

// Spawned servers and CLIs: slow on a loaded two-core machine.
vi.setConfig({ testTimeout: 120_000 })

const oneLine = (text: string) => text.replace(/\s+/g, ' ')
const holderFile = (dataDir: string) => path.join(dataDir, 'lectern.lock')
const readHolder = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number; hostname: string }

describe('data-directory lock', () => {
  it('a SIGKILLed server frees the data directory at once: the next serve starts', async () => {
    const dataDir = await tmpDataDir()
    const first = await startServer(dataDir)
    first.process.kill('SIGKILL')
    expect((await first.process).signal).toBe('SIGKILL')
    // The dead server's holder information is still there, as a crash leaves it.
    expect(readHolder(holderFile(dataDir)).pid).toBe(first.process.pid)

    const second = await startServer(dataDir)
    expect((await fetch(`${second.url}/api/ready`)).status).toBe(200)
    expect(readHolder(holderFile(dataDir))).toEqual(expect.objectContaining({ pid: second.process.pid, hostname: hostname() }))
  })

  it.each([
    ['pid 1 on this host (a restarted container whose server is PID 1 again)', { pid: 1, hostname: hostname() }],
    ['a live process on another host (the container got a new hostname)', { pid: process.pid, hostname: 'f3a9c2e1d0b4' }],
  ])('a holder file naming %s does not block a start', async (_case, holder) => {
    const dataDir = await tmpDataDir()
    fs.writeFileSync(holderFile(dataDir), JSON.stringify({ ...holder, startedAt: '2026-01-01T00:00:00.000Z' }))
    const server = await startServer(dataDir)
    expect((await fetch(`${server.url}/api/ready`)).status).toBe(200)
    expect(readHolder(holderFile(dataDir)).pid).toBe(server.process.pid)
  })

  it('two live servers refuse each other, naming the holder', async () => {
    const dataDir = await tmpDataDir()
    const first = await startServer(dataDir)
    const refused = await runCli(['serve', '--data-dir', dataDir, '--port', String(await freePort())])
    expect(refused.exitCode).toBe(8)
    expect(oneLine(refused.stderr)).toContain(`in use by Lectern process ${first.process.pid} on ${hostname()}`)
    // The refused start changed nothing: the first server still holds the lock and answers.
    expect(readHolder(holderFile(dataDir)).pid).toBe(first.process.pid)
    expect((await fetch(`${first.url}/api/ready`)).status).toBe(200)
  })

  it('within one process, a second acquire is refused until the first is released', async () => {
    const dataDir = await tmpDataDir()
    const lock = acquireDataDirLock(holderFile(dataDir), dataDir)
    expect(lockState(holderFile(dataDir))).toBe('held-here')
    const second = (() => {
      try {
        return acquireDataDirLock(holderFile(dataDir), dataDir)
      } catch (err) {
        return err
      }
    })()
    expect(isLecternError(second) && second.code).toBe('data_dir_locked')
    lock.release()
    expect(fs.existsSync(holderFile(dataDir))).toBe(false)
    expect(lockState(holderFile(dataDir))).toBe('free')
    acquireDataDirLock(holderFile(dataDir), dataDir).release()
  })
})

describe('backup lock', () => {
  it('a SIGKILLed backup is not reported as running; the last result says it was interrupted', async () => {
    const dataDir = await tmpDataDir()
    const store = await openStore(dataDir)
    // Enough data that the backup is still writing when it is killed.
    await store.settings.set(testSettingKey('bulk'), randomBytes(30 * 1024 * 1024).toString('base64'))
    await store.users.create({ email: 'ops@example.com', password: 'correct horse battery staple' })
    await store.close()

    const backup = execa('node', ['bin/run.js', 'backup', '--data-dir', dataDir], { cwd: PROJECT_ROOT, reject: false })
    onTestFinished(async () => {
      backup.kill('SIGKILL')
      await backup
    })
    const backupHolder = path.join(dataDir, 'backup.lock')
    await pollUntil('the backup to take its lock', async () => {
      if (backup.exitCode !== null) throw new Error(`the backup ended before it was killed: ${(await backup).stderr}`)
      return fs.existsSync(backupHolder) ? true : undefined
    }, 60_000)
    backup.kill('SIGKILL')
    expect((await backup).signal).toBe('SIGKILL')
    expect(readHolder(backupHolder).pid).toBe(backup.pid)

    const status = await runCli(['backup', 'status', '--data-dir', dataDir, '--json'])
    expect(status.exitCode, status.stderr).toBe(0)
    const cliStatus = JSON.parse(status.stdout) as BackupStatus
    expect(cliStatus.running).toBe(false)
    expect(cliStatus.last).toMatchObject({ ok: false, interrupted: true, error: expect.stringContaining(`process ${backup.pid}`) })

    const server = await startServer(dataDir)
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ops@example.com', password: 'correct horse battery staple' }),
    })
    const cookie = login.headers.get('set-cookie')!.split(';')[0]
    const res = await fetch(`${server.url}/api/backup/status`, { headers: { cookie } })
    expect(res.status).toBe(200)
    const serverStatus = (await res.json()) as BackupStatus
    expect(serverStatus).toMatchObject({ running: false, last: { ok: false, interrupted: true } })

    // The lock is free: a new backup runs at once and becomes the last result.
    const started = await fetch(`${server.url}/api/backup`, { method: 'POST', headers: { cookie } })
    expect(started.status).toBe(202)
    const last = await pollUntil('the new backup to finish', async () => {
      const current = (await (await fetch(`${server.url}/api/backup/status`, { headers: { cookie } })).json()) as BackupStatus
      return current.running ? undefined : current.last
    }, 60_000)
    expect(last).toMatchObject({ ok: true, trigger: 'manual' })
    expect(fs.readdirSync(path.join(dataDir, 'backups'))).toEqual([last!.name])
  })
})
