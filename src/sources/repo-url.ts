/**
 * Turns a user-supplied repository URL into a RepoRef. Every rejection is a `validation_error`
 * LecternError and nothing else escapes: the URL comes straight from request bodies and CLI flags.
 * A URL that carries credentials is refused without echoing it, so a token pasted into the
 * wrong field never reaches a response or a log line.
 */
import { validationError } from '../errors.js'
import { HTTP_REMOTES_ONLY } from './git-guard.js'

/** The source kinds of git libraries: the hosting product, which decides URL layouts and web links. */
export const GIT_SOURCE_KINDS = ['github', 'gitlab', 'bitbucket', 'git'] as const
export type GitSourceKind = (typeof GIT_SOURCE_KINDS)[number]

export interface RepoRef {
  sourceKind: GitSourceKind
  /** Lower-case host, with a port when the URL named a non-default one. */
  host: string
  owner: string
  repo: string
  /** What `git clone` is given. Never contains credentials. */
  cloneUrl: string
  /** `/${owner}/${repo}`, lower-cased. */
  libraryId: string
  /** Set when the URL pointed at a branch (`/tree/<branch>`). */
  branch?: string
  /** Link to a file at a commit on the host's web UI; undefined for hosts with no known layout. */
  webFileUrl(commit: string, path: string, anchor?: string): string | undefined
}

const MAX_URL_LENGTH = 2048

const SOURCE_KIND_OF_HOST: Record<string, GitSourceKind> = {
  'github.com': 'github',
  'gitlab.com': 'gitlab',
  'bitbucket.org': 'bitbucket',
}

/** Owner, group and repository names on all three hosts stay inside this set. */
const NAME_SEGMENT = /^[A-Za-z0-9_.~-]+$/

/** `user@host:path`, the scp-like form git accepts for SSH. */
const SCP_LIKE = /^([A-Za-z0-9._][A-Za-z0-9._-]*)@([A-Za-z0-9][A-Za-z0-9.-]*):(?!\/\/)(.+)$/

/** A subset of `git check-ref-format`, strict enough that a ref can never read as an option. */
const SAFE_REF =
  /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*(?:^|\/)\.)(?!.*(?:\/|\.lock|\.)$)[^\x00-\x20\x7f~^:?*[\\]{1,255}$/

/** Whether git reaches the repository over SSH: `ssh://` or the scp-like `user@host:path`. */
export function isSshUrl(url: string): boolean {
  return /^ssh:\/\//i.test(url) || SCP_LIKE.test(url)
}

export function isSafeRefName(ref: string): boolean {
  return SAFE_REF.test(ref) && ref !== '@'
}

interface Location {
  scheme: 'http' | 'https' | 'ssh'
  host: string
  /** Path segments, percent-decoded, without empty ones. */
  segments: string[]
  /** The clone URL as given, for generic git servers whose paths must be kept verbatim. */
  verbatim: string
}

interface ProjectPath {
  owner: string
  repo: string
  /** Segments that make up the clone path on the host. */
  pathSegments: string[]
  branch?: string
}

export interface ParseRepoOptions {
  /** Cloud mode: only http(s) URLs, since only their connections can be checked and pinned. */
  httpOnly?: boolean
}

export function parseRepoUrl(url: string, sourceKind?: GitSourceKind, options: ParseRepoOptions = {}): RepoRef {
  const input = typeof url === 'string' ? url.trim() : ''
  if (input === '') throw validationError('Repository URL is empty.')
  if (input.length > MAX_URL_LENGTH) throw validationError(`Repository URL is longer than ${MAX_URL_LENGTH} characters.`)
  // Whitespace and backslashes are either typos or attempts to smuggle a second path past the parser.
  if (/[\s\\\x00-\x1f\x7f]/.test(input)) throw validationError('Repository URL contains whitespace, control characters or backslashes.')
  // WHATWG URL parsing silently resolves `..`, so the check has to look at the raw text.
  if (/(^|[/:])(\.|%2e){1,2}(?=[/?#]|$)/i.test(input)) throw validationError('Repository URL must not contain "." or ".." path segments.')

  const location = locate(input, options.httpOnly ?? false)
  const resolved = resolveSourceKind(location, sourceKind)
  if (location.scheme === 'ssh' && resolved !== 'git') {
    throw validationError(`SSH URLs are accepted only for generic git sources; use https://${location.host}/<owner>/<repo> for ${resolved}.`)
  }
  const project = splitProject(resolved, location.segments)
  return buildRef(resolved, location, project)
}

function locate(input: string, httpOnly: boolean): Location {
  if (httpOnly && !/^https?:\/\//i.test(input)) throw validationError(HTTP_REMOTES_ONLY)
  const scp = SCP_LIKE.exec(input)
  if (scp) {
    return { scheme: 'ssh', host: scp[2].toLowerCase(), segments: splitPath(scp[3]), verbatim: stripTrailingSlash(input) }
  }
  let parsed: URL
  try {
    parsed = new URL(input)
  } catch {
    throw validationError('Repository URL is not a valid URL; expected https://<host>/<owner>/<repo>.')
  }
  const scheme = parsed.protocol.slice(0, -1)
  if (scheme !== 'https' && scheme !== 'http' && scheme !== 'ssh') {
    throw validationError(`Repository URL scheme "${scheme}" is not supported; use https:// (or ssh:// for generic git).`)
  }
  if (parsed.password !== '' || (parsed.username !== '' && scheme !== 'ssh')) {
    throw validationError('Repository URL must not contain credentials; pass the access token as gitToken instead.')
  }
  if (parsed.host === '') throw validationError('Repository URL has no host.')
  // ssh is handed the user and host as arguments: neither may read as an option.
  if (parsed.username.startsWith('-') || parsed.hostname.startsWith('-')) throw validationError('Repository URL has a user or host that begins with "-".')
  const verbatim = stripTrailingSlash(`${parsed.protocol}//${parsed.username ? `${parsed.username}@` : ''}${parsed.host}${parsed.pathname}`)
  return { scheme, host: stripWww(parsed.host), segments: splitPath(parsed.pathname), verbatim }
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s !== '').map(decodeSegment)
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw validationError('Repository URL contains a malformed percent-encoding.')
  }
}

function stripTrailingSlash(s: string): string {
  return s.replace(/\/+$/, '')
}

function stripWww(host: string): string {
  const lower = host.toLowerCase()
  return lower.startsWith('www.') && SOURCE_KIND_OF_HOST[lower.slice(4)] ? lower.slice(4) : lower
}

function resolveSourceKind(location: Location, sourceKind: GitSourceKind | undefined): GitSourceKind {
  const known = SOURCE_KIND_OF_HOST[location.host]
  if (sourceKind === undefined) return known ?? 'git'
  if (!GIT_SOURCE_KINDS.includes(sourceKind)) throw validationError(`Unknown repository kind "${String(sourceKind)}".`)
  // Self-hosted GitHub Enterprise or GitLab may live on any host, but not on a rival's.
  if (known !== undefined && sourceKind !== 'git' && known !== sourceKind) {
    throw validationError(`${location.host} is a ${known} host, not ${sourceKind}.`)
  }
  return sourceKind
}

function splitProject(sourceKind: GitSourceKind, segments: string[]): ProjectPath {
  switch (sourceKind) {
    case 'github':
      return withBranch(segments.slice(0, 2), segments.slice(2), 'tree')
    case 'gitlab': {
      // GitLab separates the project path from the page with a lone `-` segment.
      const dash = segments.indexOf('-')
      return dash === -1 ? project(segments) : withBranch(segments.slice(0, dash), segments.slice(dash + 1), 'tree')
    }
    case 'bitbucket':
      if (segments.length > 2) throw validationError('Bitbucket URL must be https://bitbucket.org/<workspace>/<repo>.')
      return project(segments)
    case 'git':
      return project(segments)
  }
}

function withBranch(projectSegments: string[], rest: string[], marker: string): ProjectPath {
  if (rest.length === 0) return project(projectSegments)
  const branch = rest.slice(1).join('/')
  if (rest[0] !== marker || branch === '') {
    throw validationError(`Repository URL must point at the repository or a branch (/${marker}/<branch>), not at "/${rest.join('/')}".`)
  }
  if (!isSafeRefName(branch)) throw validationError(`"${branch}" is not a valid branch name.`)
  return { ...project(projectSegments), branch }
}

/**
 * Owner is the first segment and repo the last, so a GitLab project in nested groups
 * (`group/sub/repo`) gets the ID `/group/repo`: IDs keep Context7's two-part shape, and the
 * full path still lives in the clone URL.
 */
function project(segments: string[]): ProjectPath {
  const pathSegments = segments.map((s, i) => (i === segments.length - 1 ? s.replace(/\.git$/i, '') : s))
  if (pathSegments.length < 2 || pathSegments.some((s) => s === '')) {
    throw validationError('Repository URL must name an owner and a repository, e.g. https://github.com/<owner>/<repo>.')
  }
  const bad = pathSegments.find((s) => !NAME_SEGMENT.test(s) || s === '.' || s === '..')
  if (bad !== undefined) throw validationError(`"${bad}" is not a valid owner, group or repository name.`)
  return { owner: pathSegments[0], repo: pathSegments[pathSegments.length - 1], pathSegments }
}

function buildRef(sourceKind: GitSourceKind, location: Location, p: ProjectPath): RepoRef {
  const base = `https://${location.host}/${p.pathSegments.join('/')}`
  // Generic servers may insist on their exact path (with or without .git, over http or ssh).
  const cloneUrl = sourceKind === 'git' ? location.verbatim : base
  const ref: RepoRef = {
    sourceKind,
    host: location.host,
    owner: p.owner,
    repo: p.repo,
    cloneUrl,
    libraryId: `/${p.owner}/${p.repo}`.toLowerCase(),
    webFileUrl: (commit, path, anchor) => webFileUrl(sourceKind, base, commit, path, anchor),
  }
  if (p.branch !== undefined) ref.branch = p.branch
  return ref
}

function webFileUrl(sourceKind: GitSourceKind, base: string, commit: string, path: string, anchor?: string): string | undefined {
  const at = `${encodeURIComponent(commit)}/${path.split('/').filter((s) => s !== '').map(encodeURIComponent).join('/')}`
  const hash = anchor ? `#${encodeURIComponent(anchor)}` : ''
  switch (sourceKind) {
    case 'github':
      return `${base}/blob/${at}${hash}`
    case 'gitlab':
      return `${base}/-/blob/${at}${hash}`
    case 'bitbucket':
      // Bitbucket prefixes heading ids with "markdown-header-", so a plain anchor would not land.
      return `${base}/src/${at}`
    case 'git':
      return undefined
  }
}
