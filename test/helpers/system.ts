/**
 * The Debian packages some tests drive for real. `npm test` installs them when they are missing
 * (scripts/system-packages.sh); a test run some other way (`npx vitest run ...`) on a machine
 * without one fails with one line naming it, not with the ENOENT of whatever tried to run it.
 */
import fs from 'node:fs'
import path from 'node:path'

/** Throws, naming the package, unless `command` (a path, or a name on the PATH) is there. */
export function requireSystemCommand(command: string, debianPackage: string): void {
  const found = path.isAbsolute(command)
    ? fs.existsSync(command)
    : (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && fs.existsSync(path.join(dir, command)))
  if (!found) throw new Error(`${command} is missing: install the Debian package ${debianPackage} (npm test installs it: scripts/system-packages.sh).`)
}

/** The ancestors of a process, nearest first (from /proc): which server a job process belongs to. */
export function ancestorPids(pid: number): number[] {
  const parent = Number(/^PPid:\s+(\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1])
  return parent <= 1 ? [] : [parent, ...ancestorPids(parent)]
}
