/**
 * The files a snippet set has beside its rows: its vector index (and sidecar) and its engine
 * file. Every way a set goes (swept, its library removed, its build failed) removes them here.
 */
import fs from 'node:fs'
import { engineFilePath, vectorIndexPath, type DataPaths } from '../paths.js'
import { removeVectorIndex } from '../search/vector-index.js'
import { removeEngineFile } from './loaded-set.js'

export function removeSetFiles(paths: DataPaths, setPk: number): void {
  removeVectorIndex(vectorIndexPath(paths, setPk))
  removeEngineFile(engineFilePath(paths, setPk))
}

/**
 * Earlier builds kept each set's lexical index alone in `lexical/`; engine files replace them, so the
 * directory is derived data nothing reads. Returns whether there was one.
 */
export function removeLegacyLexicalFiles(paths: DataPaths): boolean {
  if (!fs.existsSync(paths.legacyLexical)) return false
  fs.rmSync(paths.legacyLexical, { recursive: true, force: true })
  return true
}
