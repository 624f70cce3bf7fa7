/**
 * Finds the documentation files of a checked-out repository. The walk never follows a symlink
 * (every entry is lstat-ed and files are opened with O_NOFOLLOW), so nothing outside the clone
 * is read; it skips oversized and binary files with a logged reason, stops at MAX_FILES, and
 * returns the same sorted list for the same tree. Each file is read once, by the walk: the
 * binary check decodes it, and that text is what the walk returns.
 */
import { constants } from 'node:fs'
import { lstat, open, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { LecternError } from '../errors.js'
import { counted } from '../text/counted.js'
import { isSafeRefName } from './repo-url.js'

export interface PreviousVersion {
  tag: string
  title: string
}

export interface RepoConfig {
  projectTitle?: string
  description?: string
  branch?: string
  /** Only these folders are scanned (root-level files always are); empty means the whole repo. */
  folders: string[]
  /** Added to the default exclusions: a bare name matches anywhere, a path from the root, `*`/`**` globs. */
  excludeFolders: string[]
  /** Exact file names excluded anywhere. */
  excludeFiles: string[]
  rules: string[]
  previousVersions: PreviousVersion[]
  /** Set from the add request, never from context7.json: keep version-specific doc trees. */
  skipVersionFiltering?: boolean
}

export interface DiscoveredFile {
  /** Repo-relative, forward slashes. */
  path: string
  /** UTF-8, as read by the walk. */
  text: string
}

export const MAX_FILES = 20_000
export const MAX_FILE_BYTES = 1024 * 1024
const MAX_CONFIG_BYTES = 64 * 1024
const BINARY_SNIFF_BYTES = 8 * 1024
/**
 * Files inspected at once. One at a time, a 2,000-file repository waited on 8,000 file-system
 * calls in a row (about 0.8 s); the walk order, and so where MAX_FILES cuts, stays the same.
 */
const INSPECT_BATCH = 32
const CONFIG_FILE = 'context7.json'

const DOC_EXTENSIONS = new Set(['.md', '.mdx', '.markdown', '.rst', '.txt', '.ipynb', '.adoc', '.asciidoc'])
const ALWAYS_EXCLUDED_DIRS = new Set(['node_modules', 'vendor', 'dist', 'build', 'coverage', '__pycache__'])
/**
 * Fragments and templates of static site generators: Jekyll's `_includes/` and `_layouts/`,
 * Hugo's docs' `_common/` and `_partials/`, the `includes/` a pymdownx.snippets base path holds
 * (MkDocs Material's). Pages read them where they include them.
 */
const FRAGMENT_DIRS = new Set(['_includes', '_layouts', '_common', '_partials', 'includes'])
const I18N_DIRS = new Set(['i18n', 'l10n', 'locale', 'locales', 'translations'])
const DOCS_ROOTS = new Set(['docs', 'doc', 'documentation'])
const VERSIONED_TREES = new Set(['versioned_docs', 'versioned_sidebars'])
const VERSION_SEGMENT = /^v?\d+(\.\d+)*(\.x)?$/i
/** Context7's documented default folder exclusions: archived and superseded material. */
const OUTDATED_DIR_PATTERNS = ['*archive*', 'old', '*deprecated*', '*legacy*', '*previous*', '*outdated*', '*superseded*']
/** Project meta files, compared on the lower-cased stem with `-` read as `_`. */
const META_STEMS = new Set([
  'changelog', 'changes', 'history', 'releases', 'license', 'licence', 'copying', 'notice',
  'code_of_conduct', 'contributing', 'security',
])
/**
 * Release notes, changelogs and blog posts under their common names: they describe past versions
 * and announcements, and would outrank the docs of today for many questions. Left out anywhere,
 * unless context7.json's `folders` names them.
 */
const NOISE_DIRS = new Set([
  'changes', 'changelog', 'changelogs', 'release-notes', 'release_notes', 'releasenotes', 'releases', 'latest-releases',
  'announce', 'announcements', 'release-announcements', 'news', 'whatsnew', 'whats-new', 'blog', 'blogs', 'posts',
])
const NOISE_STEM = /^(change[-_]?logs?|changes|history|news|release[-_]?notes?|releases|whats?[-_]?new|what-s-new)$/i

/** English is left out: an `.en` copy is the content we want. */
const LANGUAGE_CODES = new Set([
  'ar', 'bg', 'bn', 'ca', 'cs', 'da', 'de', 'el', 'es', 'et', 'fa', 'fi', 'fr', 'he', 'hi', 'hr', 'hu', 'id',
  'it', 'ja', 'ko', 'lt', 'lv', 'ms', 'nb', 'nl', 'no', 'pl', 'pt', 'ro', 'ru', 'sk', 'sl', 'sr', 'sv', 'th',
  'tr', 'uk', 'ur', 'vi', 'zh',
])
const TXT_DOC_NAMES = new Set(['llms.txt', 'llms-full.txt'])
const TXT_NOT_DOCS = /^(requirements.*|constraints.*|robots|cmakelists|license|licence|notice|authors|version)\.txt$/i

const configSchema = z.object({
  projectTitle: z.string().min(1).max(100).optional(),
  description: z.string().min(10).max(200).optional(),
  branch: z.string().refine(isSafeRefName, 'not a valid branch name').optional(),
  folders: z.array(z.string().min(1).max(200)).max(200).default([]),
  excludeFolders: z.array(z.string().min(1).max(200)).max(200).default([]),
  excludeFiles: z.array(z.string().min(1).max(200).regex(/^[^/\\]+$/, 'a file name, not a path')).max(200).default([]),
  rules: z.array(z.string().min(5).max(200)).max(100).default([]),
  // The published schema requires `title`, but Context7's own example omits it; the tag stands in.
  previousVersions: z
    .array(z.object({ tag: z.string().refine(isSafeRefName, 'not a valid tag name'), title: z.string().min(1).max(50).optional() }))
    .max(100)
    .default([]),
})

export function defaultRepoConfig(): RepoConfig {
  return { folders: [], excludeFolders: [], excludeFiles: [], rules: [], previousVersions: [] }
}

/** Reads `context7.json` at the repo root; a missing, unreadable or invalid file yields the defaults. */
export async function readRepoConfig(repoDir: string, log: (msg: string) => void): Promise<RepoConfig> {
  const text = await readConfigText(repoDir, log)
  if (text === undefined) return defaultRepoConfig()
  let json: unknown
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (err) {
    log(`${CONFIG_FILE} ignored: not valid JSON (${(err as Error).message})`)
    return defaultRepoConfig()
  }
  const parsed = configSchema.safeParse(json)
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    log(`${CONFIG_FILE} ignored: ${issues.join('; ')}`)
    return defaultRepoConfig()
  }
  const { previousVersions, ...rest } = parsed.data
  return { ...rest, previousVersions: previousVersions.map((v) => ({ tag: v.tag, title: v.title ?? v.tag })) }
}

async function readConfigText(repoDir: string, log: (msg: string) => void): Promise<string | undefined> {
  const path = join(repoDir, CONFIG_FILE)
  const st = await lstat(path).catch(() => undefined)
  if (st === undefined) return undefined
  if (!st.isFile()) {
    log(`${CONFIG_FILE} ignored: ${st.isSymbolicLink() ? 'symlink' : 'not a regular file'}`)
    return undefined
  }
  if (st.size > MAX_CONFIG_BYTES) {
    log(`${CONFIG_FILE} ignored: oversized: ${st.size} bytes`)
    return undefined
  }
  const bytes = await readNoFollow(path).catch(() => undefined)
  return bytes?.toString('utf8')
}

export type Glob = '**' | RegExp

/** What a walk collects: the safety rules (no symlinks, size cap, binary skip) hold for every kind. */
export interface WalkRules {
  /** Whether a regular file, given as path segments from the root, is wanted; a string is why a file of the wanted kind is left out. */
  accept: (segments: string[]) => boolean | string
  /** Only these folders are entered (and whatever leads to them); empty means all. */
  folders: Glob[][]
  /** Directory names (lower case) skipped anywhere, on top of the default exclusions. */
  skipDirs?: ReadonlySet<string>
  maxFiles?: number
  maxFileBytes?: number
}

interface Walk {
  root: string
  config: RepoConfig
  rules: WalkRules
  excluded: Glob[][]
  files: DiscoveredFile[]
  /**
   * Entries met and not yet taken, in walk order: accepted files to inspect (at most
   * INSPECT_BATCH), and symlinks, skipped with the reason given, so that the log keeps walk order.
   */
  pending: Array<{ segments: string[]; skipped?: string }>
  stopped: boolean
  log: (msg: string) => void
  leftOut: LeftOut
}

/**
 * What the walk's rules left out, by reason: when no documentation file remains, the error names
 * them (a repository whose only docs are release notes), so the operator knows what to change.
 */
class LeftOut {
  private readonly byReason = new Map<string, { count: number; paths: string[] }>()

  add(path: string, reason: string): void {
    const entry = this.byReason.get(reason) ?? { count: 0, paths: [] }
    entry.count++
    if (entry.paths.length < LEFT_OUT_NAMED) entry.paths.push(path)
    this.byReason.set(reason, entry)
  }

  /** `CHANGELOG.md and docs/news/ (release notes); LICENSE.md (a project file)`, or '' when nothing was. */
  describe(): string {
    return [...this.byReason]
      .map(([reason, { count, paths }]) => {
        const more = count > paths.length ? ` and ${counted(count - paths.length, 'more')}` : ''
        const named = paths.length === 1 || more ? paths.join(', ') : `${paths.slice(0, -1).join(', ')} and ${paths.at(-1)}`
        return `${named}${more} (${reason})`
      })
      .join('; ')
  }
}

/** Paths the no_code_found message names per reason. */
const LEFT_OUT_NAMED = 3
const RELEASE_NOTES = "release notes, changelogs and blog posts, left out unless context7.json's folders names them"

export async function discoverDocs(repoDir: string, config: RepoConfig, log: (msg: string) => void): Promise<DiscoveredFile[]> {
  const folders = config.folders.map((p) => compilePattern(p, true))
  const { files, leftOut } = await walkTree(repoDir, config, log, { folders, accept: (segments) => isDocCandidate(config, folders, segments) })
  if (files.length === 0) {
    const left = leftOut.describe()
    throw new LecternError('no_code_found', `No documentation files found (looked for ${[...DOC_EXTENSIONS].join(', ')} files)${left ? `. Left out: ${left}` : ''}.`)
  }
  return files
}

/** The files `rules` accepts, sorted by path, under the default and configured folder exclusions. */
export async function walkRepo(repoDir: string, config: RepoConfig, log: (msg: string) => void, rules: WalkRules): Promise<DiscoveredFile[]> {
  return (await walkTree(repoDir, config, log, rules)).files
}

async function walkTree(repoDir: string, config: RepoConfig, log: (msg: string) => void, rules: WalkRules): Promise<Walk> {
  const walk: Walk = {
    root: repoDir,
    config,
    rules,
    excluded: [...OUTDATED_DIR_PATTERNS, ...config.excludeFolders].map((p) => compilePattern(p, false)),
    files: [],
    pending: [],
    stopped: false,
    log,
    leftOut: new LeftOut(),
  }
  await walkDir(walk, [])
  await inspectPending(walk)
  walk.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  return walk
}

async function walkDir(walk: Walk, dir: string[]): Promise<void> {
  const entries = await readdir(join(walk.root, ...dir), { withFileTypes: true })
  // Byte order, not locale order, so the MAX_FILES cut falls in the same place on every host.
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const entry of entries) {
    if (walk.stopped) return
    const segments = [...dir, entry.name]
    if (entry.name.startsWith('.')) continue
    if (entry.isSymbolicLink()) {
      walk.pending.push({ segments, skipped: 'symlink' })
    } else if (entry.isDirectory()) {
      if (shouldEnterDir(walk, segments) || (await isSphinxSource(walk, segments))) await walkDir(walk, segments)
    } else if (entry.isFile()) {
      const accepted = walk.rules.accept(segments)
      if (typeof accepted === 'string') walk.leftOut.add(segments.join('/'), accepted)
      if (accepted !== true) continue
      walk.pending.push({ segments })
      if (walk.pending.length >= INSPECT_BATCH) await inspectPending(walk)
    }
  }
}

function shouldEnterDir(walk: Walk, segments: string[]): boolean {
  return shouldEnterDirUnless(walk, segments, ALWAYS_EXCLUDED_DIRS)
}

function shouldEnterDirUnless(walk: Walk, segments: string[], excludedNames: ReadonlySet<string>): boolean {
  const name = segments[segments.length - 1].toLowerCase()
  const parent = segments.length > 1 ? segments[segments.length - 2].toLowerCase() : undefined
  if (excludedNames.has(name) || FRAGMENT_DIRS.has(name) || walk.rules.skipDirs?.has(name) || isTranslationDir(name, parent)) return false
  if (!walk.config.skipVersionFiltering && isVersionedDir(name, parent)) {
    walk.leftOut.add(`${segments.join('/')}/`, 'the docs of other versions')
    return false
  }
  if (walk.excluded.some((p) => matchGlob(p, segments, false))) {
    walk.leftOut.add(`${segments.join('/')}/`, "archived and outdated folders, and context7.json's excludeFolders")
    return false
  }
  const { folders } = walk.rules
  const named = folders.some((p) => matchGlob(p, segments, true))
  if (NOISE_DIRS.has(name) && !named) {
    walk.log(`skipped ${segments.join('/')}/: ${RELEASE_NOTES}`)
    walk.leftOut.add(`${segments.join('/')}/`, RELEASE_NOTES)
    return false
  }
  return folders.length === 0 || named || folders.some((p) => mayLeadTo(p, segments))
}

/**
 * A `build/` folder is build output, except where a Sphinx project keeps its sources there
 * (SQLAlchemy's `doc/build/conf.py`): it is read then, under the same rules as any folder.
 */
async function isSphinxSource(walk: Walk, segments: string[]): Promise<boolean> {
  if (segments[segments.length - 1].toLowerCase() !== 'build') return false
  const conf = await lstat(join(walk.root, ...segments, 'conf.py')).catch(() => undefined)
  if (!conf?.isFile()) return false
  const ordinary = new Set(ALWAYS_EXCLUDED_DIRS)
  ordinary.delete('build')
  return shouldEnterDirUnless(walk, segments, ordinary)
}

function isTranslationDir(name: string, parent: string | undefined): boolean {
  if (I18N_DIRS.has(name)) return true
  const lang = parseLanguageTag(name)
  // A bare code such as `es` is only a language under a docs root; elsewhere it may be code (`es/` builds).
  return lang !== undefined && (lang.region || (parent !== undefined && DOCS_ROOTS.has(parent)))
}

function isVersionedDir(name: string, parent: string | undefined): boolean {
  return VERSIONED_TREES.has(name) || (parent !== undefined && DOCS_ROOTS.has(parent) && VERSION_SEGMENT.test(name))
}

function parseLanguageTag(s: string): { region: boolean } | undefined {
  const m = /^([a-z]{2})(?:[-_]([a-z]{2,4}))?$/i.exec(s)
  if (!m || !LANGUAGE_CODES.has(m[1].toLowerCase())) return undefined
  return { region: m[2] !== undefined }
}

/** Whether the file is a documentation page; for a file of a documentation type left out, why. */
function isDocCandidate(config: RepoConfig, folders: Glob[][], segments: string[]): boolean | string {
  const name = segments[segments.length - 1]
  const dot = name.lastIndexOf('.')
  if (dot <= 0) return false
  const ext = name.slice(dot).toLowerCase()
  const stem = name.slice(0, dot)
  const atRoot = segments.length === 1
  if (!DOC_EXTENSIONS.has(ext)) return false
  if (config.excludeFiles.includes(name)) return "context7.json's excludeFiles"
  if (isMetaFile(stem, atRoot)) return 'project files such as the changelog and the licence'
  if (isTranslatedFile(stem)) return 'translations'
  if (NOISE_STEM.test(stem) && !folders.some((p) => matchGlob(p, segments, false))) return RELEASE_NOTES
  if (ext === '.txt' && !isTextDoc(name, stem, segments)) return false
  if ((ext === '.adoc' || ext === '.asciidoc') && isAsciidocPartial(stem, segments)) return 'AsciiDoc partials, read where a page includes them'
  // Context7 always reads root-level files, whatever `folders` says.
  return atRoot || folders.length === 0 || folders.some((p) => matchGlob(p, segments.slice(0, -1), true)) || "outside context7.json's folders"
}

/** Anywhere only in the conventional upper case: `docs/security.md` is often real documentation. */
function isMetaFile(stem: string, atRoot: boolean): boolean {
  const key = stem.toLowerCase().replace(/-/g, '_')
  return META_STEMS.has(key) && (atRoot || stem === stem.toUpperCase())
}

/** `README.zh-CN.md`, `index.ja.md`: a language tag as the last part of the stem. */
function isTranslatedFile(stem: string): boolean {
  const dot = stem.lastIndexOf('.')
  return dot > 0 && parseLanguageTag(stem.slice(dot + 1)) !== undefined
}

/**
 * AsciiDoc partials are read where a page includes them, never as pages of their own: Antora's
 * `partials/` and `examples/` families and its `nav.adoc` navigation, and Asciidoctor's
 * `_name.adoc` convention.
 */
function isAsciidocPartial(stem: string, segments: string[]): boolean {
  // Antora's nav.adoc files are the site's navigation: lists of links, not pages.
  return stem.startsWith('_') || stem === 'nav' || segments.slice(0, -1).some((s) => s === 'partials' || s === 'examples')
}

/** Plain text is mostly not documentation (requirements.txt, robots.txt), so it must earn its place. */
function isTextDoc(name: string, stem: string, segments: string[]): boolean {
  const lower = name.toLowerCase()
  if (TXT_DOC_NAMES.has(lower) || (segments.length === 1 && stem.toLowerCase() === 'readme')) return true
  return !TXT_NOT_DOCS.test(name) && segments.slice(0, -1).some((s) => DOCS_ROOTS.has(s.toLowerCase()))
}

/** Inspects the pending files together, then takes the pending entries in walk order until MAX_FILES. */
async function inspectPending(walk: Walk): Promise<void> {
  const batch = walk.pending.splice(0)
  const maxBytes = walk.rules.maxFileBytes ?? MAX_FILE_BYTES
  const checked = await Promise.all(batch.map(async ({ segments, skipped }) => skipped ?? inspectFile(join(walk.root, ...segments), maxBytes)))
  const maxFiles = walk.rules.maxFiles ?? MAX_FILES
  for (const [i, { segments, skipped }] of batch.entries()) {
    const path = segments.join('/')
    if (skipped === undefined && walk.files.length >= maxFiles) {
      walk.log(`stopped at ${maxFiles} files: ${path} and the rest of the repository were not scanned`)
      walk.stopped = true
      return
    }
    const file = checked[i]
    if (typeof file === 'string') walk.log(`skipped ${path}: ${file}`)
    else walk.files.push({ path, text: file.text })
  }
}

/** The file's text, or why it is skipped. */
async function inspectFile(absPath: string, maxBytes: number): Promise<{ text: string } | string> {
  const st = await lstat(absPath)
  if (st.isSymbolicLink()) return 'symlink'
  if (st.size > maxBytes) return `oversized: ${st.size} bytes`
  let bytes: Buffer
  try {
    bytes = await readNoFollow(absPath)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') return 'symlink'
    throw err
  }
  if (bytes.length > maxBytes) return `oversized: ${bytes.length} bytes`
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return 'binary'
  const text = utf8Text(bytes)
  return text === undefined ? 'not UTF-8 text' : { text }
}

/** O_NOFOLLOW closes the gap between lstat and open: a file swapped for a link is refused. */
async function readNoFollow(path: string): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW)
  try {
    return await handle.readFile()
  } finally {
    await handle.close()
  }
}

/** Without `stream`, each decode starts afresh, so one decoder serves every file. */
const UTF8 = new TextDecoder('utf-8', { fatal: true })

/** The bytes' text when they are valid UTF-8 (a BOM dropped); undefined otherwise. */
function utf8Text(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes)
  } catch {
    return undefined
  }
}

/**
 * `name` matches that directory anywhere (unless `anchorBare`), `./name` or `a/b` only from the
 * root; `*` and `**` work as in .gitignore. Matching ignores case, as doc folder names do in practice.
 */
function compilePattern(pattern: string, anchorBare: boolean): Glob[] {
  const trimmed = pattern.trim().replace(/\/+$/, '')
  const anchored = anchorBare || trimmed.includes('/')
  // A trailing `/**` adds nothing: everything under a matched folder goes with it.
  const body = trimmed.replace(/(\/\*\*)+$/, '').replace(/^\.?\/+/, '')
  const segments = body.split('/').filter((s) => s !== '' && s !== '.')
  const globs = segments.map((s): Glob => (s === '**' ? '**' : segmentRegex(s)))
  return anchored ? globs : ['**', ...globs]
}

function segmentRegex(segment: string): RegExp {
  const source = segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')
  return new RegExp(`^${source}$`, 'i')
}

/**
 * Whether the pattern matches the whole path, or with `prefix` any leading part of it (a file
 * under a listed folder). Dynamic programming over path prefixes keeps `**` patterns linear.
 */
function matchGlob(pattern: Glob[], path: string[], prefix: boolean): boolean {
  if (pattern.length === 0) return false
  let reach = Array.from({ length: path.length + 1 }, (_, i) => i === 0)
  for (const glob of pattern) {
    const next = new Array<boolean>(path.length + 1).fill(false)
    let seen = false
    for (let i = 0; i <= path.length; i++) {
      if (glob === '**') {
        seen ||= reach[i]
        next[i] = seen
      } else {
        next[i] = i > 0 && reach[i - 1] && glob.test(path[i - 1])
      }
    }
    reach = next
  }
  return prefix ? reach.slice(1).some(Boolean) : reach[path.length]
}

/** Whether a folder listed in `folders` could lie below this directory. */
function mayLeadTo(pattern: Glob[], dir: string[]): boolean {
  if (pattern.includes('**')) return true
  return dir.length < pattern.length && dir.every((s, i) => (pattern[i] as RegExp).test(s))
}
