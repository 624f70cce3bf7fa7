/**
 * Removing the snippet sets nothing serves any more, and the files no set needs. Apart from
 * build.ts, because a server sweeps at start (`recoverDataDir`), while only jobs build sets (and
 * build.ts imports the tokenizer and the vector library).
 */
import fs from 'node:fs'
import path from 'node:path'
import { engineFilePath } from '../install/paths.js'
import { hasVectorIndex } from './loaded-set.js'
import { processRuns } from './process-runs.js'
import { claimFileOf, claimHeld } from './rebuild-claim.js'
import { isBeingBuilt } from './building.js'
import { removeSetFiles } from './set-files.js'
import type { Store } from '../store/index.js'

/**
 * Removes retired sets (replaced by a newer one) and building sets (left by a job that died),
 * with their rows and files. A set this process is building is left alone, and so is a set whose
 * version's running job holds a live lease, whichever runner (another replica) builds it.
 */
export async function sweepSets(store: Store, statuses: Array<'retired' | 'building'>, onRemoved?: (setPk: number) => void): Promise<number> {
  let removed = 0
  for (const status of statuses) {
    const sets = status === 'building' ? await store.snippets.abandonedSets(new Date().toISOString()) : await store.snippets.setsWithStatus(status)
    for (const set of sets) {
      if (isBeingBuilt(set.pk)) continue
      await store.snippets.dropSet(set.pk)
      removeSetFiles(store.paths, set.pk)
      onRemoved?.(set.pk)
      removed++
    }
  }
  return removed
}

/**
 * Removes what `engine/` holds besides the engine files of existing sets: the temporary file of
 * a write that a kill cut short, a rebuild claim whose process is gone (rebuild-claim.ts), and
 * files of sets that are gone (removed while a process was down). Run at start, by the process
 * that recovers the data directory, while the serving processes may already be loading sets (the
 * most asked, at start): a write or a claim of a process that runs is theirs, and left alone.
 */
export async function sweepStrayEngineFiles(store: Store): Promise<number> {
  let names: string[]
  try {
    names = fs.readdirSync(store.paths.engine)
  } catch {
    return 0
  }
  let removed = 0
  for (const name of names) {
    const file = path.join(store.paths.engine, name)
    const setPk = /^set-(\d+)\.engine/.exec(name)?.[1]
    if (setPk !== undefined && await store.snippets.set(Number(setPk))) {
      const engineFile = engineFilePath(store.paths, Number(setPk))
      if (file === engineFile) continue
      // Written as `<file>.<pid>-<thread>.tmp` (loaded-set.ts).
      const writer = /\.engine\.(\d+)-\d+\.tmp$/.exec(name)?.[1]
      if (writer !== undefined && processRuns(Number(writer))) continue
      if (file === claimFileOf(engineFile) && claimHeld(file)) continue
    }
    fs.rmSync(file, { recursive: true, force: true })
    removed++
  }
  return removed
}

/**
 * Removes what `vectors/` holds for sets that are gone (removed while a process was down), the
 * temporary files of writes a kill cut short (`<file>.<pid>-<thread>.tmp`, written by
 * vector-index.ts; `<file>.<pid>.tmp` by earlier versions),
 * and the vector index of a hash-embedded set (built by earlier versions; its engine file holds
 * its vectors now). Unlike engine files, a vector index is written by jobs, which another process
 * (a CLI command) may be running right now: a temporary file is removed only when the process
 * that named it is gone, and a hash-embedded set's re-embedding work stays. Other names are left alone.
 */
export async function sweepStrayVectorFiles(store: Store): Promise<number> {
  let names: string[]
  try {
    names = fs.readdirSync(store.paths.vectors)
  } catch {
    return 0
  }
  let removed = 0
  for (const name of names) {
    const setPk = /^set-(\d+)\./.exec(name)?.[1]
    if (setPk === undefined) continue
    const writer = /\.(\d+)(?:-\d+)?\.tmp$/.exec(name)?.[1]
    const set = await store.snippets.set(Number(setPk))
    const unneeded = set !== undefined && !hasVectorIndex(set) && /^set-\d+\.usearch(\.json)?$/.test(name)
    if (set && !unneeded && (writer === undefined || processRuns(Number(writer)))) continue
    fs.rmSync(path.join(store.paths.vectors, name), { recursive: true, force: true })
    removed++
  }
  return removed
}
