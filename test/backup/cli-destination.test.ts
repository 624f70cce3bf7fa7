/**
 * `lectern backup --to` a destination that cannot be used ends at once with a validation error
 * naming the path and the OS's reason (exit 2), and `backup status` reports that run as failed
 * with its reason, not as interrupted. Node's own recursive mkdir spins forever on /proc.
 */
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 })

const defer = suiteTeardown()
let dataDir: string

beforeAll(async () => {
  dataDir = await tmpDataDir(defer)
  expect((await runCli(['keys', 'create', '--name', 'ci', '--data-dir', dataDir])).exitCode).toBe(0)
})

/** The last result `backup status --json` reports. */
async function lastResult(): Promise<Record<string, unknown>> {
  const status = await runCli(['backup', 'status', '--json', '--data-dir', dataDir])
  expect(status.exitCode, status.stderr).toBe(0)
  return (JSON.parse(status.stdout) as { last: Record<string, unknown> }).last
}

describe('lectern backup', () => {
  it('prints the archive it wrote on stdout, and its progress on stderr', async () => {
    const backups = await tmpDir()
    const result = await runCli(['backup', '--to', backups, '--data-dir', dataDir])
    expect(result.exitCode, result.stderr).toBe(0)
    const [name] = fs.readdirSync(backups)
    expect(name).toMatch(/^lectern-backup-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.tar\.gz$/)
    expect(result.stdout).toBe(path.join(backups, name!))
    expect(result.stderr).toContain(`Wrote ${name}`)
    expect(result.stderr).toContain('Snapshotting the database (VACUUM INTO)')
    expect(result.stderr).toContain('Collecting vector indexes and uploaded specs')
    expect(result.stderr).not.toContain('inside the data directory')
    expect(await lastResult()).not.toHaveProperty('warning')
  })

  it('warns that the default destination shares the data directory, in its output and its status', async () => {
    const result = await runCli(['backup', '--data-dir', dataDir])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(path.dirname(result.stdout)).toBe(path.join(dataDir, 'backups'))
    const warning = `The archive is in ${path.join(dataDir, 'backups')}, inside the data directory it backs up: a lost or full disk takes both.`
    const stderr = result.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ')
    expect(stderr.split(warning)).toHaveLength(2)
    expect(stderr).toContain('lectern backup config set --dir /mnt/backups')
    expect(await lastResult()).toMatchObject({ ok: true, warning: expect.stringContaining(warning) })
  })
})

describe('lectern backup --to an unusable destination', () => {
  it('a directory that cannot be created (/proc/...): ends at once with validation_error, exit 2, and status says why', async () => {
    const started = Date.now()
    const result = await runCli(['backup', '--to', '/proc/lectern-forbidden', '--json', '--data-dir', dataDir])
    expect(Date.now() - started).toBeLessThan(30_000)
    expect(result.exitCode, result.stderr).toBe(2)
    expect(JSON.parse(result.stdout)).toEqual({
      error: 'validation_error',
      message: 'Cannot create or write the backup destination /proc/lectern-forbidden: mkdir /proc/lectern-forbidden failed with ENOENT (no such file or directory).',
    })
    const last = await lastResult()
    expect(last).toMatchObject({ ok: false, code: 'validation_error', destination: 'dir:/proc/lectern-forbidden', error: expect.stringContaining('ENOENT') })
    expect(last.interrupted).toBeUndefined()

    const human = await runCli(['backup', 'status', '--data-dir', dataDir])
    expect(human.stdout.replace(/\s+/g, ' ')).toMatch(/Last backup failed \(started \d{4}-\d\d-\d\d \d\d:\d\d UTC \([^)]+\), validation_error\): Cannot create or write the backup destination \/proc\/lectern-forbidden/)
  })

  it('a missing parent under /proc fails the same way, naming the level that failed', async () => {
    const result = await runCli(['backup', '--to', '/proc/lectern-forbidden/a/b', '--data-dir', dataDir])
    expect(result.exitCode).toBe(2)
    expect(result.stderr.replace(/\s+/g, ' ')).toContain('mkdir /proc/lectern-forbidden failed with ENOENT (no such file or directory)')
    expect(result.stderr).toContain('validation_error')
  })

  it('a file, not a directory: validation_error, exit 2, and the file is untouched', async () => {
    const file = path.join(await tmpDir(), 'somefile')
    fs.writeFileSync(file, 'not a directory')
    const result = await runCli(['backup', '--to', file, '--json', '--data-dir', dataDir])
    expect(result.exitCode, result.stderr).toBe(2)
    expect(JSON.parse(result.stdout)).toEqual({ error: 'validation_error', message: `The backup destination ${file} is a file, not a directory: choose a directory for --to.` })
    expect(fs.readFileSync(file, 'utf8')).toBe('not a directory')
    expect(await lastResult()).toMatchObject({ ok: false, code: 'validation_error', error: expect.stringContaining('is a file, not a directory') })
  })

  it('a path through a file: validation_error naming the OS reason', async () => {
    const file = path.join(await tmpDir(), 'somefile')
    fs.writeFileSync(file, '')
    const result = await runCli(['backup', '--to', path.join(file, 'sub'), '--json', '--data-dir', dataDir])
    expect(result.exitCode, result.stderr).toBe(2)
    expect(JSON.parse(result.stdout)).toMatchObject({ error: 'validation_error', message: expect.stringContaining('ENOTDIR (not a directory)') })
  })

  it('a new nested directory is still created and receives the archive', async () => {
    const target = path.join(await tmpDir(), 'a', 'b')
    const result = await runCli(['backup', '--to', target, '--json', '--data-dir', dataDir])
    expect(result.exitCode, result.stderr).toBe(0)
    const { name } = JSON.parse(result.stdout) as { name: string }
    expect(fs.readdirSync(target)).toEqual([name])
    expect(fs.statSync(target).mode & 0o777).toBe(0o700)
  })
})
