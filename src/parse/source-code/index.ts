/**
 * Documentation generated from source code (`generateDocs`): one code snippet per exported API
 * symbol of the TypeScript/JavaScript, Python and Go files of a repository. Bounded in files and
 * bytes, and a file that fails to parse is logged and skipped rather than failing the library.
 */
import { ParseFailure } from '../failure.js'
import type { ParsedCodeSnippet } from '../types.js'

export const MAX_SOURCE_FILES = 2_000
export const MAX_SOURCE_BYTES = 512 * 1024

/** Directories that hold tests, vendored or built code rather than the project's own API. */
export const SKIPPED_SOURCE_DIRS: ReadonlySet<string> = new Set([
  'test', 'tests', '__tests__', 'testdata', 'vendor', 'node_modules', 'dist', 'build',
])

const TEST_FILE = /(\.(test|spec)\.[cm]?[jt]sx?|_test\.go|^test_.*\.py|_test\.py|^conftest\.py)$/

type Extractor = (path: string, text: string) => Promise<ParsedCodeSnippet[]>

const TS_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']

// A language's parser (the TypeScript compiler, half a second to import; the tree-sitter runtime)
// is imported when the first file of that language is met: only jobs with generateDocs read source.
const EXTRACTORS: Array<[extensions: string[], extract: Extractor]> = [
  [TS_EXTENSIONS, async (path, text) => (await import('./typescript.js')).typescriptSnippets(path, text)],
  [['.py'], async (path, text) => (await import('./python.js')).pythonSnippets(path, text)],
  [['.go'], async (path, text) => (await import('./go.js')).goSnippets(path, text)],
]

export interface SourceFile {
  /** Repo-relative, forward slashes. */
  path: string
  text: string
}

export interface GeneratedSnippet {
  path: string
  snippet: ParsedCodeSnippet
}

function extractorFor(path: string): Extractor | undefined {
  const lower = path.toLowerCase()
  return EXTRACTORS.find(([extensions]) => extensions.some((ext) => lower.endsWith(ext)))?.[1]
}

/** Whether the file is source code to document: a supported language, not a test, not vendored or built. */
export function isSourcePath(path: string): boolean {
  const segments = path.split('/')
  const name = segments[segments.length - 1]
  if (extractorFor(name) === undefined || TEST_FILE.test(name)) return false
  return !segments.slice(0, -1).some((dir) => SKIPPED_SOURCE_DIRS.has(dir.toLowerCase()))
}

const isDeclarationFile = (path: string) => /\.d\.[cm]?ts$/.test(path)

/**
 * Declaration files describe the API of JavaScript packages; next to TypeScript sources they only
 * repeat (or are generated from) them, so they are used only when there are no such sources.
 */
function withoutRedundantDeclarations(files: SourceFile[]): SourceFile[] {
  const hasTypeScript = files.some((f) => /\.[cm]?tsx?$/.test(f.path) && !isDeclarationFile(f.path))
  return hasTypeScript ? files.filter((f) => !isDeclarationFile(f.path)) : files
}

/** The API symbols of one source file of a supported language (isSourcePath). */
export async function sourceFileSnippets(path: string, text: string): Promise<ParsedCodeSnippet[]> {
  const extract = extractorFor(path)
  return extract ? extract(path, text) : []
}

/** sourceFileSnippets on this thread, a file it fails on rejected as a ParseFailure. */
async function extractHere(path: string, text: string): Promise<ParsedCodeSnippet[]> {
  try {
    return await sourceFileSnippets(path, text)
  } catch (err) {
    throw new ParseFailure(`failed to parse: ${err instanceof Error ? err.message : String(err)}`, false)
  }
}

/**
 * The snippets of the source files to document. `extract` reads one file (a job reads each on its
 * parse thread, under the parse budget); a file it rejects with a ParseFailure is logged and
 * skipped, any other rejection (the job cancelled) ends the generation.
 */
export async function generateSourceSnippets(
  files: SourceFile[],
  log: (msg: string) => void = () => {},
  extract: (path: string, text: string) => Promise<ParsedCodeSnippet[]> = extractHere,
): Promise<GeneratedSnippet[]> {
  const candidates = withoutRedundantDeclarations(files.filter((f) => isSourcePath(f.path)))
  if (candidates.length > MAX_SOURCE_FILES) {
    log(`documenting the first ${MAX_SOURCE_FILES} of ${candidates.length} source files`)
  }
  const generated: GeneratedSnippet[] = []
  for (const file of candidates.slice(0, MAX_SOURCE_FILES)) {
    if (Buffer.byteLength(file.text) > MAX_SOURCE_BYTES) {
      log(`skipped ${file.path}: over ${MAX_SOURCE_BYTES} bytes`)
      continue
    }
    try {
      for (const snippet of await extract(file.path, file.text)) generated.push({ path: file.path, snippet })
    } catch (err) {
      if (!(err instanceof ParseFailure)) throw err
      log(`skipped ${file.path}: it ${err.reason}`)
    }
  }
  return generated
}
