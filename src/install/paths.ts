/** The data-directory layout (ARCHITECTURE.md "Data directory"); the one place file names live. */
import path from 'node:path'

export interface DataPaths {
  root: string
  database: string
  vectors: string
  /** Engine files of snippet sets (lexical index, rendered snippets): derived data, rebuilt from the rows when missing. */
  engine: string
  /** Where earlier builds kept lexical index files; removed at start (src/index/set-files.ts). */
  legacyLexical: string
  secretKey: string
  license: string
  backups: string
  repos: string
  /** Uploaded source files (OpenAPI specs), by library slug. */
  uploads: string
  lock: string
  /** Locks of once-only work across the processes of one data directory (store.exclusively on SQLite). */
  taskLocks: string
  /** A dashboard restore waiting for the next start (ARCHITECTURE.md "Data directory"). */
  restoreStaged: string
  /** Present only while a restore moves files; a start finishes the moves it lists. */
  restoreJournal: string
  /** The one-time token that creates the first admin; present only while no admin exists (src/install/setup.ts). */
  setupToken: string
  /** Scratch space of a running backup (same filesystem as the data, so files hard-link). */
  backupWork: string
}

export function dataPaths(dataDir: string): DataPaths {
  const root = path.resolve(dataDir)
  return {
    root,
    database: path.join(root, 'lectern.db'),
    vectors: path.join(root, 'vectors'),
    engine: path.join(root, 'engine'),
    legacyLexical: path.join(root, 'lexical'),
    secretKey: path.join(root, 'secret.key'),
    license: path.join(root, 'license.json'),
    backups: path.join(root, 'backups'),
    repos: path.join(root, 'repos'),
    uploads: path.join(root, 'uploads'),
    lock: path.join(root, 'lectern.lock'),
    taskLocks: path.join(root, 'locks'),
    restoreStaged: path.join(root, 'restore-staged'),
    restoreJournal: path.join(root, 'restore-journal.json'),
    setupToken: path.join(root, 'setup-token'),
    backupWork: path.join(root, 'backup-work'),
  }
}

/** The vector index file of one snippet set. */
export function vectorIndexPath(paths: DataPaths, setPk: number): string {
  return path.join(paths.vectors, `set-${setPk}.usearch`)
}

/**
 * The files of one snippet set's re-embedding while it runs: the vectors done so far, how many
 * and for which embedder, and the new vector index before it is switched in.
 */
export function reembedPaths(paths: DataPaths, setPk: number): { vectors: string; meta: string; next: string } {
  const base = vectorIndexPath(paths, setPk)
  return { vectors: `${base}.reembed.f32`, meta: `${base}.reembed.json`, next: `${base}.next` }
}

/** The scratch directory of one job (a clone); it exists only while the job runs. */
export function jobWorkDir(paths: DataPaths, jobPk: number): string {
  return path.join(paths.repos, `job-${jobPk}`)
}

/** The job a directory under `repos/` belongs to, or undefined for any other name. */
export function jobOfWorkDir(name: string): number | undefined {
  const match = /^job-(\d+)$/.exec(name)
  return match ? Number(match[1]) : undefined
}

/** The engine file of one snippet set (src/index/loaded-set.ts). */
export function engineFilePath(paths: DataPaths, setPk: number): string {
  return path.join(paths.engine, `set-${setPk}.engine`)
}
