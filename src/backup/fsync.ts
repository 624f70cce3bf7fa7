/**
 * fsync for files and directories: a file's data is durable after fsyncFile, a rename in a
 * directory after fsyncDir on that directory. Archives and restores both rely on it.
 */
import fsp from 'node:fs/promises'

export async function fsyncFile(file: string): Promise<void> {
  const handle = await fsp.open(file, 'r+')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Makes a rename in `dir` durable (a directory entry lives in the directory, not the file). */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r')
  try {
    await handle.sync()
  } catch (err) {
    // Some network filesystems refuse fsync on a directory; the rename itself has happened.
    if ((err as NodeJS.ErrnoException).code !== 'EINVAL' && (err as NodeJS.ErrnoException).code !== 'EISDIR') throw err
  } finally {
    await handle.close()
  }
}
