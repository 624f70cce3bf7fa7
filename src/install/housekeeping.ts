/**
 * Housekeeping that must never take the process down: on a full disk (or any other failure) a
 * task is logged once, retried at its next turn, and logged again when it works.
 */
import type { JobLog } from '../jobs/worker.js'
import { likelyCause } from './disk-full.js'

/** Runs `work` and waits for it; it never rejects. */
export type Softly = (what: string, work: () => unknown) => Promise<void>

export function failSoftly(log: JobLog): Softly {
  const failing = new Set<string>()
  return async (what, work) => {
    try {
      await work()
      if (failing.delete(what)) log.info({ task: what }, 'housekeeping works again')
    } catch (err) {
      if (!failing.has(what)) log.error({ err, task: what }, `housekeeping failed (${likelyCause(err)}); it is retried`)
      failing.add(what)
    }
  }
}
