/**
 * A real full disk: a fresh tmpfs of a given size, and a filler that takes its last block.
 * Mounting needs root, which CI runs as.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { onTestFinished } from 'vitest'
import { tmpDir } from './tmp.js'

/** A fresh tmpfs of `size`, unmounted when the test ends. */
export async function tmpfs(size: string): Promise<string> {
  const mountPoint = await tmpDir('lectern-tmpfs-')
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint])
  onTestFinished(() => void execFileSync('umount', ['-l', mountPoint]))
  return mountPoint
}

/** Fills the volume until it refuses (leaving `leave` bytes); returns a function that frees it. */
export function fill(mountPoint: string, leave = 0): () => void {
  const filler = path.join(mountPoint, 'filler')
  const { bavail, bsize } = fs.statfsSync(mountPoint)
  const fd = fs.openSync(filler, 'w')
  const block = Buffer.alloc(1024 * 1024)
  try {
    for (let left = bavail * bsize - leave; left > 0; left -= block.length) fs.writeSync(fd, block, 0, Math.min(block.length, left))
    if (leave === 0) for (;;) fs.writeSync(fd, block, 0, 4096)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err
  } finally {
    fs.closeSync(fd)
  }
  return () => fs.rmSync(filler, { force: true })
}
