/**
 * Removing the snippet sets nothing serves any more. Apart from build.ts, because every process
 * that opens a data directory sweeps at start, while only jobs build sets (and build.ts imports
 * the tokenizer and the vector library).
 */
import { removeSetFiles } from './set-files.js'
import type { Store } from '../store/index.js'

/**
 * Removes retired sets (replaced by a newer one) and building sets (left by a job that died),
 * with their rows and files. Only safe for `building` sets when no job runs.
 */
export function sweepSets(store: Store, statuses: Array<'retired' | 'building'>, onRemoved?: (setPk: number) => void): number {
  let removed = 0
  for (const status of statuses) {
    for (const set of store.snippets.setsWithStatus(status)) {
      store.snippets.dropSet(set.pk)
      removeSetFiles(store.paths, set.pk)
      onRemoved?.(set.pk)
      removed++
    }
  }
  return removed
}
