/**
 * The website reader: a breadth-first crawl of a documentation site within a base URL, each
 * HTML page's main content becoming one Markdown document.
 *
 * Bounds keep any site finite: pages, depth, bytes per page and in total, and a cap per path
 * pattern (URLs differing only in numbers, such as /calendar/2024/01) so a crawl trap stops
 * long before the page bound. Query strings and fragments are dropped for the same reason:
 * docs pages do not depend on them, calendars and faceted listings do.
 */
import { createHash } from 'node:crypto'
import robotsParserModule from 'robots-parser'
import { z } from 'zod'
import { LecternError } from '../errors.js'
import { slugifySegment } from '../library/id.js'
import type { SourceDocument } from '../parse/types.js'
import { ParseFailure } from '../parse/failure.js'
import { USER_AGENT, type HttpResponse } from './http.js'
import { PageRenderer } from './renderer.js'
import { parseSourceUrl } from './source-url.js'
import type { FetchedSource, SourceContext, SourceReader, SourceSubmission } from './types.js'
import { append } from '../text/arrays.js'

// robots-parser is CommonJS (`module.exports = fn`) while its types declare an ES default export;
// under NodeNext the default import is module.exports, the function itself.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default

export const websiteSpec = z.object({
  type: z.literal('website'),
  url: z.string().url(),
  baseUrl: z.string().url().optional(),
  maxPages: z.number().int().positive().default(500),
  maxDepth: z.number().int().nonnegative().default(6),
  maxPageBytes: z.number().int().positive().default(2 * 1024 * 1024),
  maxTotalBytes: z.number().int().positive().default(100 * 1024 * 1024),
  /** Pages per path pattern (digits replaced); bounds calendars and paginated archives. */
  maxPerPattern: z.number().int().positive().default(25),
  /** Render each page in Chromium before reading it, for sites that build content with JavaScript. */
  render: z.boolean().default(false),
})

type Options = z.output<typeof websiteSpec>

const CONCURRENCY = 4
const MAX_NESTED_SITEMAPS = 20
const NON_PAGE_EXTENSIONS = /\.(?:png|jpe?g|gif|svg|webp|ico|css|js|mjs|json|xml|pdf|zip|gz|tgz|mp4|webm|mp3|woff2?|ttf|eot|txt|md)$/i

/** A URL without its fragment and query: the crawl's identity of a page. */
export function normalizePageUrl(raw: string, base?: string): string | undefined {
  try {
    const url = new URL(raw, base)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
    url.hash = ''
    url.search = ''
    return url.toString()
  } catch {
    return undefined
  }
}

/** The crawl scope: the given base URL, else the start URL's directory. */
export function scopeOf(url: string, baseUrl?: string): string {
  const scope = new URL(baseUrl ?? new URL('./', url).toString())
  scope.hash = ''
  scope.search = ''
  return scope.toString()
}

/**
 * Library ID rule: `/websites/<slugifySegment(host + base path)>`, the scope's host (with port)
 * and path, so `https://docs.example.com/guide/` -> `/websites/docs.example.com-guide`.
 */
export function websiteLibraryId(url: string, baseUrl?: string): string {
  const scope = new URL(scopeOf(url, baseUrl))
  return `/websites/${slugifySegment(scope.host + scope.pathname)}`
}

/** What POST /v2/add/website and `lectern add website` submit. */
export function websiteSubmission(url: string, baseUrl?: string, render = false): SourceSubmission {
  const spec = checkedSpec({ type: 'website', url, ...(baseUrl ? { baseUrl } : {}), render })
  return {
    libraryId: websiteLibraryId(spec.url, spec.baseUrl),
    title: new URL(spec.url).host,
    sourceKind: 'website',
    sourceUrl: spec.url,
    spec: { type: 'website', url: spec.url, ...(spec.baseUrl ? { baseUrl: spec.baseUrl } : {}), ...(render ? { render } : {}) },
  }
}

function checkedSpec(input: unknown): Options {
  const parsed = websiteSpec.safeParse(input)
  if (!parsed.success) throw new LecternError('validation_error', `Invalid website source: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
  const { url, baseUrl } = parsed.data
  parseSourceUrl(url, 'The website URL')
  if (baseUrl) parseSourceUrl(baseUrl, 'The base URL')
  if (baseUrl && !normalizePageUrl(url)!.startsWith(scopeOf(url, baseUrl))) {
    throw new LecternError('validation_error', `The start URL ${url} is outside the base URL ${baseUrl}.`)
  }
  return parsed.data
}

/**
 * A document path for a page URL, ending in .md so it parses as Markdown:
 * `/guide/` -> `guide/index.md`, `/guide/install.html` -> `guide/install.md`.
 */
export function pagePath(pageUrl: string): string {
  const path = decodeURIComponent(new URL(pageUrl).pathname).replace(/^\/+/, '')
  if (path === '' || path.endsWith('/')) return `${path}index.md`
  return `${path.replace(/\.(?:html?|php|aspx?|md|markdown|mdx|txt)$/i, '')}.md`
}

/** Digits replaced: the key of the per-pattern cap. */
const patternOf = (url: string): string => new URL(url).pathname.replace(/\d+/g, '0')

interface Page {
  url: string
  depth: number
}

interface Crawled {
  url: string
  title: string
  description?: string
  markdown: string
}

/** The state of one crawl: what was seen, queued and kept, and the bounds left. */
class Crawl {
  readonly queue: Page[] = []
  readonly seen = new Set<string>()
  readonly kept = new Map<string, Crawled>()
  private readonly perPattern = new Map<string, number>()
  bytes = 0
  /** Pages taken from the queue, counted when taken so concurrent workers cannot overshoot maxPages. */
  fetched = 0

  constructor(
    readonly options: Options,
    readonly scope: string,
    private readonly allowed: (url: string) => boolean,
    readonly renderer?: PageRenderer,
  ) {}

  /** The page's HTML: as fetched, or as Chromium shows it after its scripts ran. */
  async htmlOf(url: string, response: HttpResponse): Promise<string> {
    return this.renderer ? this.renderer.render(url) : response.text()
  }

  /** Queues a URL when it is in scope, new, allowed by robots.txt and under its pattern's cap. */
  offer(raw: string, depth: number): void {
    const url = normalizePageUrl(raw)
    if (!url || !url.startsWith(this.scope) || this.seen.has(url) || depth > this.options.maxDepth) return
    if (NON_PAGE_EXTENSIONS.test(new URL(url).pathname) || !this.allowed(url)) return
    const pattern = patternOf(url)
    const count = this.perPattern.get(pattern) ?? 0
    if (count >= this.options.maxPerPattern) return
    this.perPattern.set(pattern, count + 1)
    this.seen.add(url)
    this.queue.push({ url, depth })
  }

  get full(): boolean {
    return this.fetched >= this.options.maxPages || this.bytes >= this.options.maxTotalBytes
  }
}

export const readWebsite: SourceReader<{ type: string }> = async (raw, ctx) => {
  const options = checkedSpec(raw)
  if (!options.render) return crawlSite(options, ctx)
  if (ctx.http.guarded) {
    // The browser makes its own requests, which the private-address guard cannot check.
    throw new LecternError('forbidden', 'Rendering pages in a browser is available on-premise only.')
  }
  const renderer = await PageRenderer.launch(ctx.chromiumPath)
  try {
    return await crawlSite(options, ctx, renderer)
  } finally {
    await renderer.close()
  }
}

async function crawlSite(options: Options, ctx: SourceContext, renderer?: PageRenderer): Promise<FetchedSource> {
  const scope = scopeOf(options.url, options.baseUrl)
  const start = normalizePageUrl(options.url)!
  const robots = await readRobots(start, ctx)
  if (robots.isAllowed(start, USER_AGENT) === false) {
    throw new LecternError('forbidden', `The robots.txt of ${new URL(start).host} disallows crawling ${start}.`)
  }
  const urls = new Map<string, string>()
  const locate = (path: string, anchor: string) => {
    const url = urls.get(path) ?? path
    return anchor ? `${url}#${anchor}` : url
  }
  const first = await fetchStartPage(start, options, ctx)
  if (first.status === 304) return { documents: [], locate, unchanged: true, revision: ctx.previousRevision }
  const crawl = new Crawl(options, scope, (url) => robots.isAllowed(url, USER_AGENT) !== false, renderer)
  crawl.seen.add(start)
  crawl.fetched = 1
  crawl.bytes = first.body.length
  const startUrl = normalizePageUrl(first.url) ?? start
  let startPage: Crawled | undefined
  try {
    startPage = isHtml(first) ? await keep(crawl, startUrl, 0, await crawl.htmlOf(startUrl, first), ctx) : undefined
  } catch (err) {
    if (err instanceof ParseFailure) throw new LecternError('validation_error', `The start page ${start} could not be read: it ${err.reason}.`)
    throw err
  }
  if (!startPage) throw new LecternError('source_unreachable', `The start page ${start} is not an HTML page (${first.headers['content-type'] ?? 'no content type'}).`)
  for (const url of await sitemapUrls(start, robots.getSitemaps(), ctx)) crawl.offer(url, 1)
  await runCrawl(crawl, ctx)
  const documents = documentsOf(crawl, urls)
  ctx.log(`crawled ${crawl.fetched} pages of ${scope}, kept ${documents.length}`)
  return {
    documents,
    locate,
    title: startPage.title || new URL(start).host,
    ...(startPage.description ? { description: startPage.description } : {}),
    revision: revisionOf(first, documents),
  }
}

type Robots = ReturnType<typeof robotsParser>

/**
 * robots.txt of the site; a missing one (any status but 200) allows everything. A site whose
 * robots.txt cannot be fetched at all (refused, timed out, private address) cannot be crawled
 * either, so that failure ends the job here.
 */
async function readRobots(start: string, ctx: SourceContext): Promise<Robots> {
  const robotsUrl = new URL('/robots.txt', start).toString()
  const response = await ctx.http.request(robotsUrl, { signal: ctx.signal, maxBytes: 512 * 1024 })
  return robotsParser(robotsUrl, response.status === 200 ? response.text() : '')
}

/**
 * The start page, conditionally when the previous revision carries a validator, so an
 * unchanged site answers 304 and costs one request. Any failure here fails the job.
 */
async function fetchStartPage(start: string, options: Options, ctx: SourceContext): Promise<HttpResponse> {
  const headers = conditionalHeaders(ctx.previousRevision)
  const response = await ctx.http.request(start, { signal: ctx.signal, maxBytes: options.maxPageBytes, headers })
  if (response.status === 304 && Object.keys(headers).length > 0) return response
  if (response.status < 200 || response.status >= 300) {
    throw new LecternError('source_unreachable', `Fetching ${start} failed: the server answered ${response.status}`)
  }
  return response
}

/**
 * Revision format: `<validator>|sha256:<hash of all pages>`, the validator being `etag:<ETag>`,
 * `modified:<Last-Modified>` or empty.
 */
function revisionOf(first: HttpResponse, documents: SourceDocument[]): string {
  const hash = createHash('sha256')
  for (const doc of documents) hash.update(doc.path).update('\0').update(doc.text).update('\0')
  const etag = first.headers.etag
  const modified = first.headers['last-modified']
  const validator = etag ? `etag:${etag}` : modified ? `modified:${modified}` : ''
  return `${validator}|sha256:${hash.digest('hex')}`
}

function conditionalHeaders(previous: string | null): Record<string, string> {
  const validator = previous?.split('|sha256:')[0] ?? ''
  if (validator.startsWith('etag:')) return { 'if-none-match': validator.slice('etag:'.length) }
  if (validator.startsWith('modified:')) return { 'if-modified-since': validator.slice('modified:'.length) }
  return {}
}

/**
 * Page URLs listed by the site's sitemaps (robots.txt's, else /sitemap.xml), one level of index
 * followed; sitemaps of other origins are ignored, and the pages go through the crawl's scope.
 */
async function sitemapUrls(start: string, declared: string[], ctx: SourceContext): Promise<string[]> {
  const origin = new URL(start).origin
  const sameOrigin = (url: string) => URL.canParse(url) && new URL(url).origin === origin
  const roots = declared.filter(sameOrigin)
  if (roots.length === 0) roots.push(new URL('/sitemap.xml', start).toString())
  const pages: string[] = []
  const nested: string[] = []
  for (const root of roots) {
    const xml = await fetchSitemap(root, ctx)
    append(/<sitemapindex/i.test(xml) ? nested : pages, locsOf(xml))
  }
  for (const sitemap of nested.filter(sameOrigin).slice(0, MAX_NESTED_SITEMAPS)) append(pages, locsOf(await fetchSitemap(sitemap, ctx)))
  return pages
}

async function fetchSitemap(url: string, ctx: SourceContext): Promise<string> {
  try {
    const response = await ctx.http.request(url, { signal: ctx.signal, maxBytes: 5 * 1024 * 1024 })
    return response.status === 200 ? response.text() : ''
  } catch (err) {
    ctx.log(`sitemap ${url} unreadable: ${(err as Error).message}`)
    return ''
  }
}

function locsOf(xml: string): string[] {
  return [...xml.matchAll(/<loc>\s*(?:<!\[CDATA\[)?\s*([^<\]]+?)\s*(?:\]\]>)?\s*<\/loc>/gi)].map((m) => m[1].replace(/&amp;/g, '&'))
}

/** Breadth-first with CONCURRENCY workers sharing the queue; each page's links join its end. */
async function runCrawl(crawl: Crawl, ctx: SourceContext): Promise<void> {
  let active = 0
  const worker = async (): Promise<void> => {
    for (;;) {
      ctx.signal.throwIfAborted()
      const page = crawl.full ? undefined : crawl.queue.shift()
      if (!page) {
        // An empty queue is the end only when no other worker can still add links to it.
        if (active === 0) return
        await new Promise((resolve) => setTimeout(resolve, 10))
        continue
      }
      crawl.fetched++
      active++
      try {
        await visit(crawl, page, ctx)
      } finally {
        active--
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
}

async function visit(crawl: Crawl, page: Page, ctx: SourceContext): Promise<void> {
  let response: HttpResponse
  try {
    response = await ctx.http.request(page.url, { signal: ctx.signal, maxBytes: crawl.options.maxPageBytes })
  } catch (err) {
    if (ctx.signal.aborted) throw err
    ctx.log(`skipped ${page.url}: ${(err as Error).message}`)
    return
  }
  crawl.bytes += response.body.length
  if (crawl.fetched % 10 === 0) ctx.progress(`crawled ${crawl.fetched} pages`)
  if (response.status < 200 || response.status >= 300) return ctx.log(`skipped ${page.url}: the server answered ${response.status}`)
  const final = normalizePageUrl(response.url)
  if (!final || !final.startsWith(crawl.scope)) return ctx.log(`skipped ${page.url}: redirected out of scope to ${response.url}`)
  if (!isHtml(response)) return
  try {
    await keep(crawl, final, page.depth, await crawl.htmlOf(final, response), ctx)
  } catch (err) {
    if (!(err instanceof ParseFailure)) throw err
    ctx.log(`skipped ${final}: it ${err.reason}`)
  }
}

/** Reads an HTML page and keeps it under its canonical URL, unless that URL is kept already. */
async function keep(crawl: Crawl, url: string, depth: number, html: string, ctx: SourceContext): Promise<Crawled | undefined> {
  const page = await ctx.parse('html', { html, url })
  const canonical = page.canonical && normalizePageUrl(page.canonical)
  const key = canonical && canonical.startsWith(crawl.scope) ? canonical : url
  for (const link of page.links) crawl.offer(link, depth + 1)
  if (crawl.kept.has(key)) return undefined
  crawl.seen.add(key)
  const crawled = { url: key, title: page.title, description: page.description, markdown: page.markdown }
  crawl.kept.set(key, crawled)
  return crawled
}

/** By Content-Type, else by sniffing the start of the body. */
export function isHtml(response: HttpResponse): boolean {
  const type = String(response.headers['content-type'] ?? '').toLowerCase()
  if (type) return type.includes('text/html') || type.includes('application/xhtml')
  return /^\s*(?:<!doctype html|<html)/i.test(response.body.subarray(0, 512).toString('utf8'))
}

/** One document per kept page, in URL order so a re-crawl of the same site hashes the same; fills `urls` for locate. */
function documentsOf(crawl: Crawl, urls: Map<string, string>): SourceDocument[] {
  const documents: SourceDocument[] = []
  for (const page of [...crawl.kept.values()].sort((a, b) => a.url.localeCompare(b.url))) {
    const path = pagePath(page.url)
    if (urls.has(path) || !page.markdown.trim()) continue
    urls.set(path, page.url)
    documents.push({ path, text: page.markdown })
  }
  return documents
}
