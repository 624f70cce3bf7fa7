/**
 * Confluence spaces and pages, through a stored connection (`lectern connections add confluence`).
 * Cloud speaks REST v2 (`/wiki/api/v2`, cursor paging via `_links.next`); Data Center speaks the
 * older `/rest/api/content` (start/limit paging). A site on atlassian.net is Cloud; any other site
 * is probed once. Each page becomes one Markdown document headed by its title, its ancestors
 * prefixed to every snippet's breadcrumb.
 */
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { refuseCleartextConnection } from './connections.js'
import { LecternError } from '../errors.js'
import { slugifySegment } from '../library/id.js'
import type { SourceDocument } from '../parse/types.js'
import { normalizeBaseUrl, type Connection, type ConnectionScope } from '../store/connections.js'
import type { Store } from '../store/index.js'
import { storedConnectionRefusal } from '../tenancy/stored-connections.js'
import type { FetchedSource, SourceContext, SourceReader, SourceSubmission } from './types.js'
import { ParseFailure } from '../parse/failure.js'

export const confluenceSpec = z.object({
  type: z.literal('confluence'),
  connection: z.string().min(1),
  spaceKey: z.string().regex(/^[A-Za-z0-9_~-]{1,255}$/, 'a space key holds letters, digits, "_", "~" or "-"'),
  pageIds: z.array(z.string().regex(/^\d{1,30}$/, 'a page ID is a number')).max(1000).optional(),
  title: z.string().optional(),
})

export type ConfluenceSpec = z.infer<typeof confluenceSpec>

/** Spaces larger than this are cut off, with a log line; a source is not a crawl of everything. */
export const MAX_CONFLUENCE_PAGES = 5000
const CLOUD_PAGE_LIMIT = 250
const DC_PAGE_LIMIT = 50

interface Page {
  id: string
  title: string
  version: number
  storage: string
  webUrl: string
  /** Titles from the space root down to the parent. */
  ancestors: string[]
}

/** What one flavour of the API needs: where it lives and how requests are signed. */
interface Site {
  connection: Connection
  /** The site URL without a trailing `/wiki` (Cloud) or with its context path (Data Center). */
  root: string
  headers: Record<string, string>
  ctx: SourceContext
}

function authHeaders(connection: Connection, token: string): Record<string, string> {
  // Cloud API tokens go with the account email (Basic); Data Center personal tokens are Bearer.
  const authorization = connection.email
    ? `Basic ${Buffer.from(`${connection.email}:${token}`).toString('base64')}`
    : `Bearer ${token}`
  return { authorization, accept: 'application/json' }
}

async function getJson<T>(site: Site, url: string): Promise<T> {
  const response = await site.ctx.http.request(url, { headers: site.headers, signal: site.ctx.signal })
  const { name } = site.connection
  if (response.status === 401 || response.status === 403) {
    throw new LecternError(
      'source_unreachable',
      `Confluence at ${site.root} refused the token of connection "${name}" (HTTP ${response.status}). Check the token and its access to the space; to replace it run \`lectern connections remove ${name}\` and add it again.`,
    )
  }
  if (response.status < 200 || response.status >= 300) {
    throw new LecternError('source_unreachable', `Confluence at ${site.root} answered ${response.status} for ${new URL(url).pathname}.`)
  }
  return response.json<T>()
}

const cloudApi = (site: Site) => `${site.root}/wiki/api/v2`

async function isCloud(site: Site): Promise<boolean> {
  if (new URL(site.root).hostname.endsWith('.atlassian.net')) return true
  const probe = await site.ctx.http.request(`${cloudApi(site)}/spaces?limit=1`, { headers: site.headers, signal: site.ctx.signal })
  return probe.status >= 200 && probe.status < 300
}

interface CloudPage {
  id: string
  title: string
  parentId?: string | null
  version?: { number?: number }
  body?: { storage?: { value?: string } }
  _links?: { webui?: string; base?: string }
}

interface CloudList<T> {
  results: T[]
  _links?: { next?: string; base?: string }
}

function cloudPage(site: Site, raw: CloudPage, base: string | undefined): Page & { parentId: string | null } {
  return {
    id: String(raw.id),
    title: raw.title,
    version: raw.version?.number ?? 0,
    storage: raw.body?.storage?.value ?? '',
    webUrl: `${raw._links?.base ?? base ?? `${site.root}/wiki`}${raw._links?.webui ?? `/pages/${raw.id}`}`,
    ancestors: [],
    parentId: raw.parentId ? String(raw.parentId) : null,
  }
}

/** Cloud gives only parent IDs; the trail is rebuilt from the pages of the same fetch. */
function withCloudAncestors(pages: Array<Page & { parentId: string | null }>): Page[] {
  const byId = new Map(pages.map((p) => [p.id, p]))
  return pages.map(({ parentId, ...page }) => {
    const ancestors: string[] = []
    const seen = new Set([page.id])
    for (let parent = parentId && byId.get(parentId); parent && !seen.has(parent.id); parent = parent.parentId ? byId.get(parent.parentId) : undefined) {
      seen.add(parent.id)
      ancestors.unshift(parent.title)
    }
    return { ...page, ancestors }
  })
}

async function readCloud(site: Site, spec: ConfluenceSpec): Promise<{ pages: Page[]; spaceName?: string }> {
  const api = cloudApi(site)
  if (spec.pageIds?.length) {
    const pages = []
    for (const id of spec.pageIds) pages.push(cloudPage(site, await getJson<CloudPage>(site, `${api}/pages/${id}?body-format=storage`), undefined))
    return { pages: withCloudAncestors(pages) }
  }
  const spaces = await getJson<CloudList<{ id: string; name?: string }>>(site, `${api}/spaces?keys=${encodeURIComponent(spec.spaceKey)}`)
  const space = spaces.results[0]
  if (!space) throw new LecternError('source_unreachable', `Confluence at ${site.root} has no space "${spec.spaceKey}" visible to connection "${site.connection.name}".`)
  const pages: Array<Page & { parentId: string | null }> = []
  let next: string | undefined = `${api}/spaces/${space.id}/pages?body-format=storage&limit=${CLOUD_PAGE_LIMIT}`
  while (next && pages.length < MAX_CONFLUENCE_PAGES) {
    const list: CloudList<CloudPage> = await getJson<CloudList<CloudPage>>(site, next)
    pages.push(...list.results.map((raw) => cloudPage(site, raw, list._links?.base)))
    site.ctx.progress(`read ${pages.length} Confluence pages`)
    // `next` is relative to the site's origin (it starts with /wiki/api/v2).
    next = list._links?.next ? new URL(list._links.next, site.root).toString() : undefined
  }
  if (next) site.ctx.log(`space ${spec.spaceKey} has more than ${MAX_CONFLUENCE_PAGES} pages; the rest were not read`)
  return { pages: withCloudAncestors(pages.slice(0, MAX_CONFLUENCE_PAGES)), spaceName: space.name }
}

interface DcPage {
  id: string
  title: string
  version?: { number?: number }
  ancestors?: Array<{ title: string }>
  body?: { storage?: { value?: string } }
  _links?: { webui?: string }
}

function dcPage(site: Site, raw: DcPage, base: string | undefined): Page {
  return {
    id: String(raw.id),
    title: raw.title,
    version: raw.version?.number ?? 0,
    storage: raw.body?.storage?.value ?? '',
    webUrl: `${base ?? site.root}${raw._links?.webui ?? `/pages/viewpage.action?pageId=${raw.id}`}`,
    ancestors: (raw.ancestors ?? []).map((a) => a.title),
  }
}

async function readDataCenter(site: Site, spec: ConfluenceSpec): Promise<{ pages: Page[] }> {
  const api = `${site.root}/rest/api/content`
  const expand = 'expand=body.storage,ancestors,version'
  if (spec.pageIds?.length) {
    const pages = []
    for (const id of spec.pageIds) {
      const raw = await getJson<DcPage & { _links?: { base?: string } }>(site, `${api}/${id}?${expand}`)
      pages.push(dcPage(site, raw, raw._links?.base))
    }
    return { pages }
  }
  const pages: Page[] = []
  for (let start = 0; pages.length < MAX_CONFLUENCE_PAGES; ) {
    const url = `${api}?spaceKey=${encodeURIComponent(spec.spaceKey)}&type=page&${expand}&start=${start}&limit=${DC_PAGE_LIMIT}`
    const list = await getJson<{ results: DcPage[]; size: number; limit: number; _links?: { base?: string; next?: string } }>(site, url)
    pages.push(...list.results.map((raw) => dcPage(site, raw, list._links?.base)))
    site.ctx.progress(`read ${pages.length} Confluence pages`)
    // A short page (size below limit) is the last one; the server may lower the limit we asked for.
    if (list.size === 0 || list.size < list.limit) break
    start += list.size
  }
  return { pages: pages.slice(0, MAX_CONFLUENCE_PAGES) }
}

/** Changes when a page is added, removed or edited: page IDs with their version numbers. */
function revisionOf(pages: Page[]): string {
  const marks = pages.map((p) => `${p.id}:${p.version}`).sort()
  return createHash('sha256').update(marks.join('\n')).digest('hex').slice(0, 32)
}

const documentPath = (page: Page) => `${page.id}-${slugifySegment(page.title)}.md`

/** One page as a Markdown document, its ancestors ahead of the heading trail of each of its snippets. */
function pageDocument(page: Page, markdown: string): SourceDocument {
  return { path: documentPath(page), text: `# ${page.title}\n\n${markdown}\n`, ancestors: page.ancestors }
}

export const readConfluence: SourceReader<{ type: string } & Record<string, unknown>> = async (raw, ctx): Promise<FetchedSource> => {
  const spec = confluenceSpec.parse(raw)
  if (!ctx.connections) throw storedConnectionRefusal('Confluence')
  const connection = await ctx.store.connections.get(ctx.connections, spec.connection)
  if (!connection || connection.kind !== 'confluence') {
    throw new LecternError('validation_error', `No Confluence connection named "${spec.connection}". Add it with \`lectern connections add confluence\`.`)
  }
  refuseCleartextConnection(connection, ctx.guard)
  const site: Site = {
    connection,
    root: connection.baseUrl.replace(/\/wiki$/, ''),
    headers: authHeaders(connection, await ctx.store.connections.token(ctx.connections, connection.name)),
    ctx,
  }
  ctx.progress(`reading Confluence space ${spec.spaceKey}`)
  const cloud = await isCloud(site)
  const { pages, spaceName } = cloud ? await readCloud(site, spec) : { ...(await readDataCenter(site, spec)), spaceName: undefined }
  const revision = revisionOf(pages)
  if (ctx.previousRevision === revision) return { documents: [], locate: (path) => path, revision, unchanged: true }
  const urls = new Map(pages.map((p) => [documentPath(p), p.webUrl]))
  const documents: SourceDocument[] = []
  for (const page of pages) {
    try {
      documents.push(pageDocument(page, await ctx.parse('confluence', { storage: page.storage })))
    } catch (err) {
      if (!(err instanceof ParseFailure)) throw err
      ctx.log(`skipped ${page.webUrl}: it ${err.reason}`)
    }
  }
  return {
    documents,
    locate: (path, anchor) => `${urls.get(path) ?? path}${anchor ? `#${anchor}` : ''}`,
    title: spec.title ?? spaceName,
    revision,
  }
}

export interface ConfluenceInput {
  connection: string
  spaceKey: string
  pageIds?: string[]
  title?: string
  description?: string
}

/**
 * `/confluence/<slug of the title>` when a title is given (the API always gives one), else
 * `/confluence/<space key, lower-case>`; a title lets two page selections of one space coexist.
 */
export function confluenceLibraryId(spaceKey: string, title?: string): string {
  return `/confluence/${slugifySegment(title?.trim() || spaceKey)}`
}

/** The stored Confluence connection of `scope` for a site URL, compared without `/wiki` and trailing slashes. */
export async function confluenceConnectionForSite(store: Store, scope: ConnectionScope, siteUrl: string): Promise<Connection | undefined> {
  const site = normalizeBaseUrl(siteUrl).replace(/\/wiki$/, '').toLowerCase()
  return (await store.connections.list(scope, 'confluence')).find((c) => c.baseUrl.replace(/\/wiki$/, '').toLowerCase() === site)
}

/** Checks the input and its connection now, so a mistake is a 400 at submit rather than a failed job. */
export async function confluenceSubmission(store: Store, scope: ConnectionScope, input: ConfluenceInput): Promise<SourceSubmission> {
  const connection = await store.connections.get(scope, input.connection)
  if (!connection || connection.kind !== 'confluence') {
    throw new LecternError('validation_error', `No Confluence connection named "${input.connection}". Add it with \`lectern connections add confluence --name ${input.connection} --site <url> --token-stdin\`.`)
  }
  const title = input.title?.trim() || undefined
  const parsed = confluenceSpec.safeParse({ type: 'confluence', connection: connection.name, spaceKey: input.spaceKey, ...(input.pageIds?.length ? { pageIds: input.pageIds } : {}), ...(title ? { title } : {}) })
  if (!parsed.success) throw new LecternError('validation_error', `Invalid Confluence source: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
  return {
    libraryId: confluenceLibraryId(parsed.data.spaceKey, title),
    title: title ?? parsed.data.spaceKey,
    description: input.description,
    sourceKind: 'confluence',
    sourceUrl: `${connection.baseUrl} space ${parsed.data.spaceKey}`,
    spec: parsed.data,
    // Workspace pages sit behind a login at their source; only key holders see them here too.
    isPrivate: true,
  }
}
