/**
 * The job process yields the CPU to requests. Ingest parses, tokenizes and embeds for seconds at
 * a time; on a machine with few cores it would take a core from the process answering requests
 * and their latency would climb. So the job process lowers itself to the lowest priority: when
 * cores are short the scheduler runs requests first, and when they are idle the job runs at full
 * speed.
 *
 * Linux gives each thread its own nice value, and a new thread or child process takes its
 * creator's. V8 starts its helper threads (garbage collection, compilation) before any code runs,
 * so each thread the process has is lowered; those it starts later (libuv's pool, `git`) inherit
 * the lowest priority from the thread that starts them.
 */
import fs from 'node:fs'
import os from 'node:os'

/**
 * Lowers every thread of this process to the lowest scheduling priority. Returns the nice value
 * they now have, or undefined where threads have no priority of their own (not Linux) or it cannot
 * be changed.
 */
export function yieldCpuToRequests(): number | undefined {
  if (process.platform !== 'linux') return undefined
  try {
    for (const tid of fs.readdirSync('/proc/self/task')) {
      try {
        os.setPriority(Number(tid), os.constants.priority.PRIORITY_LOW)
      } catch (err) {
        // A thread that ended since the listing needs no priority.
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err
      }
    }
    return os.getPriority(process.pid)
  } catch {
    return undefined
  }
}
