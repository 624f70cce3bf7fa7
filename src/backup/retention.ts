/**
 * Retention: keep the newest N archives (N >= 1) or all of them. Only names matching the archive
 * pattern are considered, the archive just made is never removed, and one failed deletion is
 * reported without stopping the others. Callers prune only after a successful backup.
 */
import type { Destination } from './destinations.js'
import { isArchiveName } from './names.js'

export type Retention = { keep: number } | { keep: 'all' }

export interface PruneResult {
  removed: string[]
  failed: Array<{ name: string; error: string }>
}

export async function pruneArchives(destination: Destination, retention: Retention, justMade: string): Promise<PruneResult> {
  const result: PruneResult = { removed: [], failed: [] }
  if (retention.keep === 'all') return result
  // Names carry a fixed-width UTC timestamp, so reverse string order is newest first.
  const names = (await destination.list()).map((a) => a.name).filter(isArchiveName).sort().reverse()
  for (const name of names.slice(Math.max(1, retention.keep))) {
    if (name === justMade) continue
    try {
      await destination.remove(name)
      result.removed.push(name)
    } catch (err) {
      result.failed.push({ name, error: (err as Error).message })
    }
  }
  return result
}
