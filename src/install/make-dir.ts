/**
 * Creates a directory and its missing parents, failing at once where Node's own recursive mkdir
 * spins forever: it retries a path whose parent exists but refuses children with ENOENT (`/proc`,
 * `/sys`), thousands of times a second. Here each level is tried once, from the nearest existing
 * ancestor down, and the OS error of the level that fails is thrown as it is (its `code` and
 * `path` intact), so callers can say which path failed and why.
 */
import fs from 'node:fs'
import path from 'node:path'

export function makeDirectory(dir: string, mode = 0o700): void {
  const target = path.resolve(dir)
  try {
    fs.mkdirSync(target, { mode })
    return
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return requireDirectory(target)
    const parent = path.dirname(target)
    if (code !== 'ENOENT' || parent === target) throw err
  }
  makeDirectory(path.dirname(target), mode)
  try {
    fs.mkdirSync(target, { mode })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    requireDirectory(target)
  }
}

/** An existing path must be a directory (following symlinks); else ENOTDIR naming it. */
function requireDirectory(target: string): void {
  if (fs.statSync(target, { throwIfNoEntry: false })?.isDirectory()) return
  throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${target}'`), { code: 'ENOTDIR', syscall: 'mkdir', path: target })
}
