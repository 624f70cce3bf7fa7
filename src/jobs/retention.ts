/**
 * How long ended jobs are kept (`jobs.retentionDays`): every refresh adds a job and up to 500 log
 * lines, so an install that refreshes its libraries daily would otherwise grow its database
 * without end. Each library keeps its newest ended job however old, so how it got its snippets (or why
 * it has none) stays readable. Queued and running jobs are never touched.
 */
import { readSetting } from '../settings.js'
import type { Store } from '../store/index.js'

const DAY_MS = 24 * 60 * 60 * 1000

/** Deletes the ended jobs past the retention, with their log lines; returns how many. */
export async function pruneEndedJobs(store: Store, now = new Date()): Promise<number> {
  const days = await readSetting(store.settings, 'jobs.retentionDays')
  if (days === 0) return 0
  return await store.jobs.pruneEnded(new Date(now.getTime() - days * DAY_MS))
}
