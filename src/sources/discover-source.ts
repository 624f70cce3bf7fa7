/**
 * Finds the source files to generate documentation from (`generateDocs`), under the same safety
 * rules as the documentation walk: no symlinks, a size cap, binary files and the default
 * exclusions skipped, and `excludeFolders`/`excludeFiles` of context7.json honoured.
 */
import { isSourcePath, MAX_SOURCE_BYTES, MAX_SOURCE_FILES, SKIPPED_SOURCE_DIRS } from '../parse/source-code/index.js'
import { walkRepo, type DiscoveredFile, type RepoConfig } from './discover.js'

export async function discoverSourceFiles(repoDir: string, config: RepoConfig, log: (msg: string) => void): Promise<DiscoveredFile[]> {
  return walkRepo(repoDir, config, log, {
    accept: (segments) => !config.excludeFiles.includes(segments[segments.length - 1]) && isSourcePath(segments.join('/')),
    // `folders` lists where the documentation lives; the code it would describe is elsewhere.
    folders: [],
    skipDirs: SKIPPED_SOURCE_DIRS,
    maxFiles: MAX_SOURCE_FILES,
    maxFileBytes: MAX_SOURCE_BYTES,
  })
}
