/** The data-directory layout (ARCHITECTURE.md "Data directory"); the one place file names live. */
import path from 'node:path'

export interface DataPaths {
  root: string
  database: string
  vectors: string
  secretKey: string
  license: string
  backups: string
  repos: string
  lock: string
}

export function dataPaths(dataDir: string): DataPaths {
  const root = path.resolve(dataDir)
  return {
    root,
    database: path.join(root, 'lectern.db'),
    vectors: path.join(root, 'vectors'),
    secretKey: path.join(root, 'secret.key'),
    license: path.join(root, 'license.json'),
    backups: path.join(root, 'backups'),
    repos: path.join(root, 'repos'),
    lock: path.join(root, 'lectern.lock'),
  }
}

/** The vector index file of one snippet set. */
export function vectorIndexPath(paths: DataPaths, setPk: number): string {
  return path.join(paths.vectors, `set-${setPk}.usearch`)
}
