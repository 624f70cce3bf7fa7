/**
 * The files a snippet set has beside its rows: its vector index (and sidecar), its engine file,
 * and while it is re-embedded the work of that (reembed.ts). Every way a set goes (swept, its
 * library removed, its build failed) removes them here, so a set replaced while its
 * re-embedding was half done leaves nothing behind.
 */
import fs from 'node:fs'
import { engineFilePath, reembedPaths, vectorIndexPath, type DataPaths } from '../install/paths.js'
import { removeVectorIndex } from './vector-index.js'
import { removeEngineFile } from './loaded-set.js'

export function removeSetFiles(paths: DataPaths, setPk: number): void {
  removeVectorIndex(vectorIndexPath(paths, setPk))
  removeEngineFile(engineFilePath(paths, setPk))
  removeReembedFiles(paths, setPk)
}

/** Removes a set's re-embedding work: its saved vectors and count, and a new index not switched in. */
export function removeReembedFiles(paths: DataPaths, setPk: number): void {
  const files = reembedPaths(paths, setPk)
  fs.rmSync(files.vectors, { force: true })
  fs.rmSync(files.meta, { force: true })
  removeVectorIndex(files.next)
}

/**
 * Earlier builds kept each set's lexical index alone in `lexical/`; engine files replace them, so
 * the directory is derived data nothing reads. Returns whether there was one.
 */
export function removeLegacyLexicalFiles(paths: DataPaths): boolean {
  if (!fs.existsSync(paths.legacyLexical)) return false
  fs.rmSync(paths.legacyLexical, { recursive: true, force: true })
  return true
}
