/**
 * One rebuild of an engine file for all the processes of a data directory. Under `serve --workers
 * N` every process that is asked for a set whose file must be rebuilt (every set after a restore)
 * would rebuild it, N times the work for the same bytes. The first process to create the set's
 * claim file (`set-12.engine.rebuilding`, exclusively) rebuilds it; the others wait until the
 * claim is gone, then load the file it wrote.
 *
 * A claim is advice, never a lock a crash can leave behind: one whose process no longer runs (on
 * this host), or older than CLAIM_MAX_AGE_MS, is taken over. At worst two processes rebuild the
 * same file, which each writes atomically, as without a claim.
 */
import fs from 'node:fs'
import os from 'node:os'
import { z } from 'zod'
import { processRuns } from './process-runs.js'

/** Longer than a rebuild takes (about 100 ms per 1,000 snippets): a claim this old is someone's stuck or lost work. */
export const CLAIM_MAX_AGE_MS = 60_000
/** How often a waiting process looks whether the claim is gone. */
const POLL_MS = 50

const Claim = z.object({ pid: z.number().int().positive(), host: z.string() })

export const claimFileOf = (engineFile: string): string => `${engineFile}.rebuilding`

export interface RebuildClaim {
  release(): void
}

/**
 * Claims the rebuild of `engineFile` for this process; undefined while another live process holds
 * it. A claim that cannot be created for another reason (a read-only disk) is not needed: the
 * rebuild goes ahead unclaimed.
 */
export function claimRebuild(engineFile: string): RebuildClaim | undefined {
  const file = claimFileOf(engineFile)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid, host: os.hostname() }), { flag: 'wx' })
      return { release: () => fs.rmSync(file, { force: true }) }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return { release: () => {} }
    }
    if (claimHeld(file)) return undefined
    // Stale: taken over, once; should another process take it first, it holds it.
    fs.rmSync(file, { force: true })
  }
  return undefined
}

/** Resolves once no live process holds the claim on `engineFile`, or once `stop()` says to. */
export async function claimReleased(engineFile: string, stop: () => boolean): Promise<void> {
  const file = claimFileOf(engineFile)
  while (!stop() && claimHeld(file)) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

/** Whether the claim file `file` exists and its process may still be at work. */
export function claimHeld(file: string): boolean {
  let text: string
  let modified: number
  try {
    text = fs.readFileSync(file, 'utf8')
    modified = fs.statSync(file).mtimeMs
  } catch {
    return false
  }
  if (Date.now() - modified > CLAIM_MAX_AGE_MS) return false
  const claim = Claim.safeParse(safeJson(text))
  // Being written this instant (empty), or damaged: its age decides.
  if (!claim.success) return true
  return claim.data.host !== os.hostname() || processRuns(claim.data.pid)
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
