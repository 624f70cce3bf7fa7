import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { directoryDestination, type Destination } from '../../src/backup/destinations.js'
import { archiveName } from '../../src/backup/names.js'
import { pruneArchives } from '../../src/backup/retention.js'
import { BackupRunner } from '../../src/backup/runner.js'
import { SCHEDULE_POLL_MS, SCHEDULE_PRESETS, startScheduler, validateSchedule, type Schedule } from '../../src/backup/schedule.js'
import { updateBackupConfig } from '../../src/backup/config.js'
import { tmpDir } from '../helpers/tmp.js'
import { seededApp } from './helpers.js'

const day = (n: number) => archiveName(new Date(Date.UTC(2026, 0, n, 2)))

async function dirWith(names: string[]): Promise<string> {
  const dir = await tmpDir()
  for (const name of names) fs.writeFileSync(path.join(dir, name), name)
  return dir
}

describe('retention', () => {
  it('keeps the newest N and removes only older archive-named files', async () => {
    const strays = ['notes.txt', 'lectern-backup-latest.tar.gz', '.lectern-backup-x.tar.gz.partial.keep', 'lectern-backup-2026-01-01T02-00-00.tar.gz.bak']
    const dir = await dirWith([day(1), day(2), day(3), day(4), ...strays])
    const result = await pruneArchives(directoryDestination(dir), { keep: 2 }, day(4))
    expect(result).toEqual({ removed: [day(2), day(1)], failed: [] })
    expect(fs.readdirSync(dir).sort()).toEqual([day(3), day(4), ...strays].sort())
  })

  it('keep all removes nothing', async () => {
    const dir = await dirWith([day(1), day(2), day(3)])
    expect(await pruneArchives(directoryDestination(dir), { keep: 'all' }, day(3))).toEqual({ removed: [], failed: [] })
    expect(fs.readdirSync(dir)).toHaveLength(3)
  })

  it('never removes the archive just made, even when the clock put it among the older ones', async () => {
    const dir = await dirWith([day(1), day(5), day(6)])
    const result = await pruneArchives(directoryDestination(dir), { keep: 1 }, day(1))
    expect(result.removed).toEqual([day(5)])
    expect(fs.readdirSync(dir).sort()).toEqual([day(1), day(6)])
  })

  it('one failed deletion does not stop the others', async () => {
    const dir = await dirWith([day(1), day(2), day(3), day(4)])
    const real = directoryDestination(dir)
    const flaky: Destination = { ...real, remove: async (name) => (name === day(2) ? Promise.reject(new Error('EACCES')) : real.remove(name)) }
    const result = await pruneArchives(flaky, { keep: 1 }, day(4))
    expect(result).toEqual({ removed: [day(3), day(1)], failed: [{ name: day(2), error: 'EACCES' }] })
  })

  it('a failed backup prunes nothing', async () => {
    const app = await seededApp()
    const dir = await dirWith([day(1), day(2), day(3)])
    await updateBackupConfig(app.runtime.store, { retention: { keep: 1 } })
    // A file where the staging directory should be makes the backup fail before any archive exists.
    const blocked = path.join(dir, 'not-a-dir')
    fs.writeFileSync(blocked, '')
    await expect((await new BackupRunner(app.runtime.store, { info() {}, warn() {}, error() {} }).start({ trigger: 'manual', target: blocked })).done).rejects.toThrow()
    expect(fs.readdirSync(dir).sort()).toEqual([day(1), day(2), day(3), 'not-a-dir'])
  })
})

describe('one backup at a time', () => {
  it('a scheduled run while a manual one runs is skipped and logged', async () => {
    const app = await seededApp()
    const warnings: Array<[object, string]> = []
    const runner = new BackupRunner(app.runtime.store, { info() {}, warn: (o, m) => void warnings.push([o, m]), error() {} })
    const manual = await runner.start({ trigger: 'manual', target: await tmpDir() })
    await runner.fireScheduled()
    expect(warnings).toEqual([[{ runningSince: manual.startedAt }, 'scheduled backup skipped: another backup is running']])
    await manual.done
    expect((await runner.status()).last).toMatchObject({ ok: true, trigger: 'manual' })
  })
})

describe('schedule validation', () => {
  it('accepts the presets, 5-field expressions and IANA time zones', () => {
    for (const preset of Object.keys(SCHEDULE_PRESETS)) expect(validateSchedule({ expression: preset, timeZone: 'UTC' })).toBe(SCHEDULE_PRESETS[preset as keyof typeof SCHEDULE_PRESETS])
    expect(validateSchedule({ expression: '30 1 * * 1-5', timeZone: 'America/New_York' })).toBe('30 1 * * 1-5')
    expect(validateSchedule({ expression: '0 0 29 feb *', timeZone: 'UTC' })).toBe('0 0 29 feb *')
  })

  it.each([
    ['0 0 31 2 *', /no date that exists/],
    ['0 0 30,31 2 *', /no date that exists/],
    ['0 0 31 4,6,9,11 *', /no date that exists/],
    ['60 * * * *', /not a valid cron/],
    ['* * * *', /5-field/],
    ['0 0 * * * *', /5-field/],
    ['every-hour', /preset/],
  ])('refuses %s', (expression, message) => {
    expect(() => validateSchedule({ expression, timeZone: 'UTC' })).toThrow(message)
  })

  it('refuses an unknown time zone', () => {
    expect(() => validateSchedule({ expression: 'daily', timeZone: 'Nowhere/Special' })).toThrow(/time zone/)
  })
})

describe('the backup scheduler', () => {
  it('takes up a schedule saved by another process within a second', async () => {
    vi.useFakeTimers({ now: new Date('2026-06-12T10:00:30Z') })
    onTestFinished(() => void vi.useRealTimers())
    let stored: Schedule | null = null
    let fired = 0
    const scheduler = startScheduler(() => stored, () => fired++, { warn: () => {} })
    onTestFinished(() => scheduler.stop())
    // Saved elsewhere (`lectern backup config set`, another worker): nothing calls reload() here.
    stored = { expression: '* * * * *', timeZone: 'UTC' }
    await vi.advanceTimersByTimeAsync(SCHEDULE_POLL_MS)
    expect(fired).toBe(0)
    await vi.advanceTimersByTimeAsync(60_000)
    expect(fired).toBe(1)
  })
})
