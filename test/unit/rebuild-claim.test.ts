/** The claim that lets one process of a data directory rebuild an engine file while the others wait (src/index/rebuild-claim.ts). */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CLAIM_MAX_AGE_MS, claimFileOf, claimRebuild, claimReleased } from '../../src/index/rebuild-claim.js'
import { tmpDir } from '../helpers/tmp.js'

const engineFile = async () => path.join(await tmpDir(), 'set-7.engine')
const claimOf = (file: string, claim: object | string) => fs.writeFileSync(claimFileOf(file), typeof claim === 'string' ? claim : JSON.stringify(claim))
/** Dates the claim file `ms` back. */
const age = (file: string, ms: number) => {
  const then = new Date(Date.now() - ms)
  fs.utimesSync(claimFileOf(file), then, then)
}
/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!

describe('rebuild claims', () => {
  it('is held by one claimant at a time, and free again once released', async () => {
    const file = await engineFile()
    const first = claimRebuild(file)
    expect(first).toBeDefined()
    expect(JSON.parse(fs.readFileSync(claimFileOf(file), 'utf8'))).toEqual({ pid: process.pid, host: os.hostname() })
    expect(claimRebuild(file)).toBeUndefined()
    first!.release()
    expect(fs.existsSync(claimFileOf(file))).toBe(false)
    const second = claimRebuild(file)
    expect(second).toBeDefined()
    second!.release()
  })

  it('takes over a claim whose process is gone, and one too old, whoever held it', async () => {
    const file = await engineFile()
    claimOf(file, { pid: deadPid(), host: os.hostname() })
    const fromDead = claimRebuild(file)
    expect(fromDead).toBeDefined()
    expect(JSON.parse(fs.readFileSync(claimFileOf(file), 'utf8'))).toMatchObject({ pid: process.pid })
    fromDead!.release()

    // Another host's process cannot be looked up: its claim holds until it is too old.
    claimOf(file, { pid: 1, host: 'another-host' })
    expect(claimRebuild(file)).toBeUndefined()
    age(file, CLAIM_MAX_AGE_MS + 1000)
    const fromOld = claimRebuild(file)
    expect(fromOld).toBeDefined()
    fromOld!.release()
  })

  it('treats a claim being written, or damaged, as held until it is too old', async () => {
    const file = await engineFile()
    for (const written of ['', '{"pid":', '{"pid":"x","host":3}']) {
      claimOf(file, written)
      expect(claimRebuild(file), written).toBeUndefined()
      age(file, CLAIM_MAX_AGE_MS + 1000)
      const claim = claimRebuild(file)
      expect(claim, written).toBeDefined()
      claim!.release()
    }
  })

  it('rebuilds unclaimed when no claim can be written (a read-only or missing directory)', async () => {
    const file = path.join(await tmpDir(), 'no-such-dir', 'set-7.engine')
    const claim = claimRebuild(file)
    expect(claim).toBeDefined()
    expect(() => claim!.release()).not.toThrow()
  })

  it('waits until the claim is released, or until told to stop', async () => {
    const file = await engineFile()
    const held = claimRebuild(file)!
    let released = false
    const waiting = claimReleased(file, () => false).then(() => released)
    setTimeout(() => {
      released = true
      held.release()
    }, 120)
    expect(await waiting).toBe(true)

    claimOf(file, { pid: process.pid, host: os.hostname() })
    let stop = false
    const stopped = claimReleased(file, () => stop)
    stop = true
    await stopped
    expect(fs.existsSync(claimFileOf(file))).toBe(true)
  })
})
