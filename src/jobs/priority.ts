/**
 * The job thread yields the CPU to requests. Ingest parses, tokenizes and embeds for seconds at
 * a time; on a machine with few cores it would take a core from the threads answering requests
 * and their latency would climb. Linux gives each thread its own nice value, so the job thread
 * lowers its own to the lowest priority: when cores are short the scheduler runs requests first,
 * and when they are idle the job runs at full speed. Child processes it starts (git) inherit it.
 */
import fs from 'node:fs'
import os from 'node:os'

/**
 * Lowers the calling thread's scheduling priority. Returns the nice value it now has, or
 * undefined where threads have no priority of their own (not Linux) or it cannot be changed.
 */
export function yieldCpuToRequests(): number | undefined {
  if (process.platform !== 'linux') return undefined
  try {
    // /proc/thread-self names this thread's task: `<pid>/task/<tid>`.
    const tid = Number(/\/task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'))?.[1])
    if (!Number.isInteger(tid)) return undefined
    os.setPriority(tid, os.constants.priority.PRIORITY_LOW)
    return os.getPriority(tid)
  } catch {
    return undefined
  }
}
