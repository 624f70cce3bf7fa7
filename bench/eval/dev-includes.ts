/**
 * Which repository files a docs page pulls in, for the checker only: a question's
 * `codeMustContain` may live in an included file, and then that file must be graded too.
 * The forms are the ones the development corpora use (issue 10, item 1); this is a reading aid
 * for grading, not the product's include resolution.
 */
import { existsSync, statSync } from 'node:fs'
import path from 'node:path'

/** Each pattern captures the target path of one include form. */
const INCLUDE_PATTERNS: RegExp[] = [
  /\{\*\s*([^\s*]+)[^*]*\*\}/g, // FastAPI family: {* docs_src/x.py hl[3] *}
  /--8<--\s+["']([^"']+)["']/g, // pymdownx snippets, inline form
  /^<<<\s+([^\s{#[]+)/gm, // VitePress code import: <<< @/path{lang} / <<< ./file#region [title]
  /<!--\s*@include:\s*([^\s{#]+?)\s*-->/g, // VitePress markdown include
  /^\s*\.\.\s+(?:literalinclude|include)::\s*(\S+)/gm, // Sphinx reStructuredText
  /^[`:]{3,}\s*\{(?:literalinclude|include)\}\s*(\S+)/gm, // Sphinx MyST
  /^import\s+[\w$\s{},*]+?\s+from\s+["']([^"']+)["']/gm, // MDX: raw-loader code and MDX partials
]

const ALLOWED_IMPORT = /\.(mdx?|[cm]?[jt]sx?|py|json|ya?ml|toml|sh|txt)$/i

/** Resolves one directive target against the page, the repository root and the manifest's roots. */
function resolveTarget(repoDir: string, page: string, rawTarget: string, includeRoots: Record<string, string>): string | null {
  const target = rawTarget.replace(/^!!raw-loader!/, '').replace(/[?#].*$/, '')
  const candidates: string[] = []
  const root = Object.entries(includeRoots).find(([prefix]) => (prefix === '/' ? target.startsWith('/') : target.startsWith(`${prefix}/`)))
  if (root) candidates.push(path.posix.join(root[1], target.slice(root[0] === '/' ? 1 : root[0].length + 1)))
  else if (target.startsWith('./') || target.startsWith('../')) candidates.push(path.posix.join(path.posix.dirname(page), target))
  else candidates.push(path.posix.join(path.posix.dirname(page), target), path.posix.normalize(target))
  for (const candidate of candidates) {
    if (candidate.startsWith('..') || path.posix.isAbsolute(candidate)) continue
    const file = path.join(repoDir, candidate)
    if (existsSync(file) && statSync(file).isFile()) return candidate
  }
  return null
}

/** The text with fenced code blocks blanked: an `import` shown as example code is not an include. */
function withoutFences(text: string): string {
  let fence: string | null = null
  return text
    .split('\n')
    .map((line) => {
      const opener = /^\s*(`{3,}|~{3,})/.exec(line)
      if (fence === null && opener) fence = opener[1]
      else if (fence !== null && line.trim().startsWith(fence)) fence = null
      else if (fence === null) return line
      return ''
    })
    .join('\n')
}

/** The repo-relative files that `page` includes directly. */
export function directIncludes(repoDir: string, page: string, text: string, includeRoots: Record<string, string>): string[] {
  const found = new Set<string>()
  const prose = withoutFences(text)
  for (const pattern of INCLUDE_PATTERNS) {
    const isImport = pattern.source.startsWith('^import')
    for (const match of (isImport ? prose : text).matchAll(pattern)) {
      const target = match[1]
      if (isImport && !ALLOWED_IMPORT.test(target.replace(/[?#].*$/, ''))) continue
      const resolved = resolveTarget(repoDir, page, target, includeRoots)
      if (resolved && resolved !== page) found.add(resolved)
    }
  }
  return [...found]
}
