import { describe, expect, it } from 'vitest'
import { databaseUnreachable, LecternError } from '../../src/errors.js'
import { failSoftly } from '../../src/install/housekeeping.js'
import type { JobLog } from '../../src/jobs/worker.js'

function recordingLog(): { log: JobLog; lines: Array<[string, string]> } {
  const lines: Array<[string, string]> = []
  const at = (level: string) => (_obj: unknown, msg: string) => void lines.push([level, msg])
  return { log: { info: at('info'), warn: at('warn'), error: at('error') }, lines }
}

describe('housekeeping that fails softly', () => {
  it('logs a failing task once, with the likely cause, and again once it works', async () => {
    const { log, lines } = recordingLog()
    const softly = failSoftly(log)
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
    await softly('sweep', () => Promise.reject(full))
    await softly('sweep', () => Promise.reject(full))
    await softly('sweep', () => undefined)
    expect(lines).toEqual([
      ['error', 'housekeeping failed (is the disk full?); it is retried'],
      ['info', 'housekeeping works again'],
    ])
  })

  it('points at the database, not the disk, while PostgreSQL cannot be reached', async () => {
    const { log, lines } = recordingLog()
    const softly = failSoftly(log)
    await softly('sweep', () => Promise.reject(databaseUnreachable(new Error('connect ECONNREFUSED 127.0.0.1:5432'))))
    await softly('prune', () => Promise.reject(new LecternError('internal_error', 'something else')))
    expect(lines).toEqual([
      ['error', 'housekeeping failed (the database cannot be reached); it is retried'],
      ['error', 'housekeeping failed (is the disk full?); it is retried'],
    ])
  })
})
