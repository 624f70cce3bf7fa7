/** A process's resident memory as Linux reports it in /proc: now, and its peak since a reset. */
import fs from 'node:fs'

type Pid = number | 'self'

/** A size field of /proc/<pid>/status in bytes; null where /proc is absent. */
function statusBytes(pid: Pid, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) * 1024 : null
  } catch {
    return null
  }
}

/** The resident set of `pid` now. */
export const currentRss = (pid: Pid = 'self'): number | null => statusBytes(pid, 'VmRSS')

/** The kernel's high-water mark of the resident set of `pid`, since its start or resetPeakRss. */
export const kernelPeakRss = (pid: Pid = 'self'): number | null => statusBytes(pid, 'VmHWM')

/** Starts the high-water mark of `pid` afresh at its present resident set (Linux: clear_refs 5). */
export function resetPeakRss(pid: Pid = 'self'): void {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5')
  } catch {
    // No /proc: the sampled peak stands alone.
  }
}

/** The process ids of the children of `pid` (the job process of `lectern serve`, a cluster's workers). */
export function childPids(pid: number): number[] {
  return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
}
