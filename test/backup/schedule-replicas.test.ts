/**
 * A backup schedule fires on every replica of an install on PostgreSQL (and on the one process of
 * an SQLite install): each slot (the minute it fires in) is started once, whichever replicas fire
 * it and whenever, and the next slot again once.
 */
import fs from 'node:fs'
import { describe, expect, it, onTestFinished } from 'vitest'
import { updateBackupConfig } from '../../src/backup/config.js'
import { isArchiveName } from '../../src/backup/names.js'
import { BackupRunner, minuteOf } from '../../src/backup/runner.js'
import { freshStore, sameDatabase, type StoreKind } from '../helpers/stores.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

const serverDefer = suiteTeardown()
const log = { info() {}, warn() {}, error() {} }

describe.each<StoreKind>(['sqlite', 'postgres'])('a backup schedule on %s', (kind) => {
  it('starts each slot once, however many replicas fire it', async () => {
    const store = await freshStore(kind, onTestFinished, serverDefer)
    const out = await tmpDir('lectern-backups-')
    await updateBackupConfig(store, { destination: { type: 'dir', path: out } })
    // On SQLite one process runs the schedule; on PostgreSQL every replica does.
    const stores = kind === 'postgres' ? [store, await sameDatabase(store, onTestFinished), await sameDatabase(store, onTestFinished)] : [store]
    const runners = stores.map((s) => new BackupRunner(s, log))
    const archives = () => fs.readdirSync(out).filter(isArchiveName)
    const fireAll = async (slot: string) => {
      await Promise.all(runners.map((runner) => runner.fireScheduled(slot)))
      await Promise.all(runners.map((runner) => runner.idle()))
    }

    const slot = minuteOf(new Date())
    await fireAll(slot)
    expect(archives()).toHaveLength(1)
    // The same slot again (a replica whose timer fired late): nothing more.
    await fireAll(slot)
    expect(archives()).toHaveLength(1)
    await fireAll(minuteOf(new Date(Date.parse(slot) + 60_000)))
    expect(archives()).toHaveLength(2)
    expect((await runners[0]!.status()).last).toMatchObject({ ok: true, trigger: 'schedule' })
  })
})
