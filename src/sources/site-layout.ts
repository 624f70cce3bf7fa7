/**
 * How a repository's docs site is laid out, as far as parsing its pages needs: where include
 * paths like VitePress `@/x` or Sphinx `/x` start, whether it is a Sphinx project (whose `::`
 * blocks default to Python, and whose `.txt` pages may be reStructuredText, as Django's are),
 * and a reader of the repository's other files for include directives that never leaves the
 * clone (no `..`, no symlink pointing out, regular files under a size cap only).
 */
import fs from 'node:fs'
import path from 'node:path'
import type { IncludeReader, ParseContext, SiteLayout } from '../parse/types.js'

/** Included files are code examples and fragments; anything bigger is not one. */
const MAX_INCLUDE_BYTES = 512 * 1024
/** Site configuration files are found within this many folders of the root. */
const MAX_DEPTH = 3
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'build', 'vendor', '__pycache__'])

/**
 * All the included text one page may read: a fragment that includes itself several times would
 * otherwise expand to the power of the include depth.
 */
const MAX_INCLUDED_BYTES = 8 * 1024 * 1024

/**
 * A reader of the checkout's files for one page's include directives. Whatever is outside the
 * repository answers alike whether it exists or not ("a link that leaves the repository"), so a
 * repository's symlinks cannot probe the server's files through the report.
 */
export function repositoryReader(root: string, record: IncludeReader['record']): IncludeReader {
  const realRoot = fs.realpathSync(root)
  const inside = (file: string) => file === realRoot || file.startsWith(realRoot + path.sep)
  let included = 0
  return {
    record,
    readFile(relative) {
      const absolute = path.resolve(realRoot, relative)
      if (path.isAbsolute(relative) || !inside(absolute)) return undefined
      let real: string
      try {
        real = fs.realpathSync(absolute)
      } catch {
        return throughLink(realRoot, relative) ? { skipped: LEAVES } : undefined
      }
      if (!inside(real)) return { skipped: LEAVES }
      let bytes: Buffer
      try {
        const stat = fs.statSync(real)
        if (!stat.isFile()) return undefined
        if (stat.size > MAX_INCLUDE_BYTES) return { skipped: `${stat.size} bytes, over the ${MAX_INCLUDE_BYTES}-byte cap` }
        if (included + stat.size > MAX_INCLUDED_BYTES) return { skipped: `over the ${MAX_INCLUDED_BYTES / 1024 / 1024} MB one page may include in all` }
        bytes = fs.readFileSync(real)
      } catch (err) {
        return { skipped: `unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})` }
      }
      if (bytes.includes(0)) return { skipped: 'not text' }
      included += bytes.length
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
      } catch {
        return { skipped: 'not UTF-8 text' }
      }
    },
  }
}

const LEAVES = 'a link that leaves the repository or points at nothing'

/** Whether a path that does not resolve goes through a symbolic link (one pointing out, or at nothing). */
function throughLink(realRoot: string, relative: string): boolean {
  let at = realRoot
  for (const part of relative.split('/').filter((p) => p !== '' && p !== '.')) {
    at = path.join(at, part)
    try {
      if (fs.lstatSync(at).isSymbolicLink()) return true
    } catch {
      return false
    }
  }
  return false
}

export interface Found {
  /** Repo-relative folder of the file. */
  dir: string
  text: string
}

/** Files named `name` (or matching it) within MAX_DEPTH folders of the root, nearest first. */
export function findConfigs(root: string, match: (name: string) => boolean, wantDir = false): Found[] {
  const found: Found[] = []
  const visit = (relative: string, depth: number) => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(path.join(root, relative), { withFileTypes: true })
    } catch {
      return
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : 1))
    for (const entry of entries) {
      if (entry.isSymbolicLink()) continue
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`
      if (match(entry.name) && (wantDir ? entry.isDirectory() : entry.isFile())) {
        const text = wantDir ? '' : readSmall(path.join(root, child))
        found.push({ dir: relative, text })
      }
      if (entry.isDirectory() && depth < MAX_DEPTH && !SKIPPED_DIRS.has(entry.name) && (!entry.name.startsWith('.') || match(entry.name))) {
        visit(child, depth + 1)
      }
    }
  }
  visit('', 0)
  return found.sort((a, b) => a.dir.split('/').length - b.dir.split('/').length)
}

function readSmall(file: string): string {
  try {
    const stat = fs.statSync(file)
    return stat.size > 256 * 1024 ? '' : fs.readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

const join = (...parts: string[]) => path.posix.normalize(parts.filter((p) => p !== '').join('/')).replace(/^\.\/?$/, '')

/** `compilerOptions.paths` of a tsconfig (JSON with comments), as repository paths. */
function pathAliases(config: Found): NonNullable<SiteLayout['aliases']> {
  let parsed: { compilerOptions?: { baseUrl?: string; paths?: Record<string, string[]> } }
  try {
    parsed = JSON.parse(config.text.replace(/^\s*\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '').replace(/,(\s*[}\]])/g, '$1'))
  } catch {
    return []
  }
  const options = parsed.compilerOptions ?? {}
  const base = join(config.dir, options.baseUrl ?? '.')
  return Object.entries(options.paths ?? {})
    .filter(([, targets]) => Array.isArray(targets))
    .map(([pattern, targets]) => ({ pattern, targets: targets.filter((t) => typeof t === 'string').map((t) => join(base, t)) }))
}

/** What parsing the repository's pages needs to know of its docs site. */
export function siteLayout(root: string): SiteLayout {
  const roots: string[] = []
  let literalLanguage: string | undefined
  let sphinx: SiteLayout['sphinx']

  const sphinxConf = findConfigs(root, (name) => name === 'conf.py')[0]
  if (sphinxConf) {
    literalLanguage = /^\s*highlight_language\s*=\s*['"]([\w+-]+)['"]/m.exec(sphinxConf.text)?.[1] ?? 'python'
    if (literalLanguage === 'default' || literalLanguage === 'python3') literalLanguage = 'python'
    const suffixes = [...(/^\s*source_suffix\s*=\s*([^\n]+)/m.exec(sphinxConf.text)?.[1] ?? "'.rst'").matchAll(/['"](\.\w+)['"]/g)].map((m) => m[1])
    sphinx = { root: sphinxConf.dir, suffixes: suffixes.length > 0 ? suffixes : ['.rst'] }
    roots.push(sphinxConf.dir)
  }
  // A site that configures its own slugify names anchors by rules we cannot know: GitHub's are the closest guess.
  const anchorStyles: NonNullable<SiteLayout['anchorStyles']> = []
  for (const site of findConfigs(root, (name) => name === '.vitepress', true)) {
    const config = findConfigs(path.join(root, site.dir, '.vitepress'), (name) => /^config\.(m?[jt]s)$/.test(name))[0]
    const srcDir = config ? /\bsrcDir\s*:\s*['"]([^'"]+)['"]/.exec(config.text)?.[1] : undefined
    roots.push(join(site.dir, srcDir ?? ''))
    if (!/\bslugify\b/.test(config?.text ?? '')) anchorStyles.push({ root: join(site.dir, srcDir ?? ''), style: 'vitepress' })
  }
  for (const mkdocs of findConfigs(root, (name) => name === 'mkdocs.yml' || name === 'mkdocs.yaml')) {
    const docsDir = /^docs_dir:\s*['"]?([^'"\s]+)/m.exec(mkdocs.text)?.[1] ?? 'docs'
    // pymdownx.snippets' base_path: a folder or a list of folders, from the mkdocs.yml folder.
    const basePaths = /base_path:\s*(\[[^\]]*\]|['"]?[^\s'"]+['"]?)/.exec(mkdocs.text)?.[1]
    const bases = basePaths ? [...basePaths.matchAll(/['"]?([^\s,'"[\]]+)['"]?/g)].map((m) => m[1]) : []
    roots.push(mkdocs.dir, ...bases.map((base) => join(mkdocs.dir, base)), join(mkdocs.dir, docsDir))
    if (!/^\s+slugify:/m.test(mkdocs.text)) anchorStyles.push({ root: join(mkdocs.dir, docsDir), style: 'python-markdown' })
  }
  // Jekyll (`_includes/` is at the site's root), Hugo (its content folder), mdBook (`src/`), Antora (a component).
  let templates: SiteLayout['templates']
  for (const jekyll of findConfigs(root, (name) => name === '_config.yml')) {
    roots.push(jekyll.dir)
    templates ??= 'jekyll'
  }
  for (const hugo of findConfigs(root, (name) => /^(hugo|config)\.(toml|ya?ml|json)$/.test(name))) {
    const contentDir = /^contentDir\s*[:=]\s*['"]?([^'"\s]+)/m.exec(hugo.text)?.[1] ?? 'content'
    if (!fs.existsSync(path.join(root, hugo.dir, contentDir))) continue
    roots.push(join(hugo.dir, contentDir), hugo.dir)
    templates ??= 'hugo'
  }
  for (const book of findConfigs(root, (name) => name === 'book.toml')) {
    const src = /^src\s*=\s*['"]([^'"]+)['"]/m.exec(book.text)?.[1] ?? 'src'
    roots.push(join(book.dir, src), book.dir)
  }
  for (const antora of findConfigs(root, (name) => name === 'antora.yml')) roots.push(antora.dir)
  const aliases: NonNullable<SiteLayout['aliases']> = []
  for (const docusaurus of findConfigs(root, (name) => /^docusaurus\.config\.(m?[jt]s)$/.test(name))) {
    roots.push(docusaurus.dir)
    aliases.push({ pattern: '@site/*', targets: [join(docusaurus.dir, '*')] })
  }
  for (const tsconfig of findConfigs(root, (name) => name === 'tsconfig.json' || name === 'jsconfig.json')) aliases.push(...pathAliases(tsconfig))
  // A configured folder that is absolute or climbs out names no folder of the repository.
  const inRepository = (folder: string) => !path.posix.isAbsolute(folder) && folder !== '..' && !folder.startsWith('../')
  const styled = anchorStyles.filter((site) => inRepository(site.root))
  return {
    root,
    siteRoots: [...new Set(roots)].filter(inRepository),
    ...(styled.length > 0 ? { anchorStyles: styled } : {}),
    ...(templates ? { templates } : {}),
    ...(aliases.length > 0 ? { aliases } : {}),
    ...(literalLanguage ? { literalLanguage } : {}),
    ...(sphinx ? { sphinx } : {}),
  }
}

/** The context the pages of a site are parsed in: its layout, and a reader of its checkout's files. */
export function siteContext(layout: SiteLayout, record: IncludeReader['record']): ParseContext {
  const { root, ...conventions } = layout
  return { ...conventions, includes: repositoryReader(root, record) }
}
