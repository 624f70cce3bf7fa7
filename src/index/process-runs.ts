/** Whether a process of that id runs on this host (signal 0 checks without signalling). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it runs, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}
