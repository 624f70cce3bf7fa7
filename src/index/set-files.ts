/**
 * The files a snippet set has beside its rows: its vector index (and sidecar) and its lexical
 * index. Every way a set goes (swept, its library removed, its build failed) removes them here.
 */
import { lexicalIndexPath, vectorIndexPath, type DataPaths } from '../paths.js'
import { removeVectorIndex } from '../search/vector-index.js'
import { removeLexicalFile } from './loaded-set.js'

export function removeSetFiles(paths: DataPaths, setPk: number): void {
  removeVectorIndex(vectorIndexPath(paths, setPk))
  removeLexicalFile(lexicalIndexPath(paths, setPk))
}
