/**
 * The llms.txt reader (https://llmstxt.org): an H1 title, an optional `>` summary, free text,
 * then H2 sections listing `- [name](url): notes` links. The linked pages on the same site are
 * fetched, bounded, each one a Markdown document; the "Optional" section comes last and is
 * what a spent budget drops. A file that is not a link index (llms-full.txt, llms-small.txt)
 * is one Markdown document as it is.
 */
import { createHash } from 'node:crypto'
import { z } from 'zod'
import { LecternError } from '../errors.js'
import { slugifySegment } from '../library/id.js'
import type { SourceDocument } from '../parse/types.js'
import type { HttpResponse } from './http.js'
import { parseSourceUrl } from './source-url.js'
import type { SourceContext, SourceReader, SourceSubmission } from './types.js'
import { isHtml, normalizePageUrl, pagePath } from './website.js'
import { ParseFailure } from '../parse/failure.js'

export const llmstxtSpec = z.object({
  type: z.literal('llmstxt'),
  url: z.string().url(),
  maxPages: z.number().int().positive().default(200),
  maxTotalBytes: z.number().int().positive().default(50 * 1024 * 1024),
  maxPageBytes: z.number().int().positive().default(5 * 1024 * 1024),
})

type Options = z.output<typeof llmstxtSpec>

const CONCURRENCY = 4
const WHOLE_FILES = /(?:^|\/)llms-(?:full|small)\.txt$/i
const LINK_ITEM = /^\s*[-*+]\s+\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)\s*(?::\s*(.*))?$/

export interface LlmsLink {
  name: string
  url: string
  notes: string
  optional: boolean
}

export interface LlmsIndex {
  title: string
  summary: string
  /** The free text between the summary and the first section. */
  details: string
  links: LlmsLink[]
}

/**
 * Library ID rule: `/llmstxt/<slugifySegment(host + path)>`, the file's host (with port) and
 * path, so `https://docs.example.com/llms.txt` -> `/llmstxt/docs.example.com-llms.txt`.
 */
export function llmstxtLibraryId(url: string): string {
  const parsed = new URL(url)
  return `/llmstxt/${slugifySegment(parsed.host + parsed.pathname)}`
}

/** What POST /v2/add/llmstxt and `lectern add llmstxt` submit. */
export function llmstxtSubmission(url: string): SourceSubmission {
  const spec = checkedSpec({ type: 'llmstxt', url })
  return {
    libraryId: llmstxtLibraryId(spec.url),
    title: new URL(spec.url).host,
    sourceKind: 'llmstxt',
    sourceUrl: spec.url,
    spec: { type: 'llmstxt', url: spec.url },
  }
}

function checkedSpec(input: unknown): Options {
  const parsed = llmstxtSpec.safeParse(input)
  if (!parsed.success) throw new LecternError('validation_error', `Invalid llms.txt source: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
  parseSourceUrl(parsed.data.url, 'The llms.txt URL')
  return parsed.data
}

/** Parses the llms.txt format; links are resolved against `baseUrl`, unresolvable ones dropped. */
export function parseLlmsTxt(text: string, baseUrl: string): LlmsIndex {
  const index: LlmsIndex = { title: '', summary: '', details: '', links: [] }
  const details: string[] = []
  let section: string | undefined
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const h1 = /^#\s+(.+)$/.exec(line)
    const h2 = /^##\s+(.+)$/.exec(line)
    if (h1 && !index.title && section === undefined) index.title = h1[1].trim()
    else if (h2) section = h2[1].trim()
    else if (section === undefined && /^>\s?/.test(line) && details.every((l) => l.trim() === '')) index.summary = `${index.summary} ${line.replace(/^>\s?/, '')}`.trim()
    else if (section === undefined) details.push(line)
    else addLink(index, line, section, baseUrl)
  }
  index.details = details.join('\n').trim()
  return index
}

function addLink(index: LlmsIndex, line: string, section: string, baseUrl: string): void {
  const match = LINK_ITEM.exec(line)
  if (!match || !URL.canParse(match[2], baseUrl)) return
  index.links.push({ name: match[1].trim(), url: new URL(match[2], baseUrl).toString(), notes: (match[3] ?? '').trim(), optional: section.toLowerCase() === 'optional' })
}

/**
 * A link index has sections made mostly of link items; a file of prose and code under H2s
 * (an llms-full.txt by another name) does not.
 */
export function isLinkIndex(text: string, url: string): boolean {
  if (WHOLE_FILES.test(new URL(url).pathname)) return false
  const lines = text.split(/\r?\n/)
  const firstSection = lines.findIndex((line) => /^##\s/.test(line))
  if (firstSection < 0) return false
  const body = lines.slice(firstSection).filter((line) => line.trim() !== '' && !/^##\s/.test(line))
  const items = body.filter((line) => LINK_ITEM.test(line)).length
  return items > 0 && items * 2 >= body.length
}

export const readLlmsTxt: SourceReader<{ type: string }> = async (raw, ctx) => {
  const options = checkedSpec(raw)
  const root = await ctx.http.get(options.url, { signal: ctx.signal, maxBytes: options.maxPageBytes })
  const text = root.text()
  const rootPath = pagePath(root.url)
  const urls = new Map<string, string>([[rootPath, root.url]])
  const locate = (path: string, anchor: string) => {
    const url = urls.get(path) ?? path
    return anchor ? `${url}#${anchor}` : url
  }
  const hash = createHash('sha256').update(text)
  if (!isLinkIndex(text, root.url)) {
    const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim()
    return { documents: [{ path: rootPath, text }], locate, revision: hash.digest('hex'), ...(title ? { title } : {}) }
  }
  const index = parseLlmsTxt(text, root.url)
  const pages = await fetchLinked(index, root.url, options, ctx)
  const documents: SourceDocument[] = []
  const overview = overviewOf(index, rootPath)
  if (overview) documents.push(overview)
  for (const page of pages) {
    if (urls.has(page.doc.path)) continue
    urls.set(page.doc.path, page.url)
    documents.push(page.doc)
    hash.update('\0').update(page.doc.path).update('\0').update(page.doc.text)
  }
  ctx.log(`read ${documents.length} documents from ${index.links.length} links of ${root.url}`)
  return {
    documents,
    locate,
    revision: hash.digest('hex'),
    ...(index.title ? { title: index.title } : {}),
    ...(index.summary ? { description: index.summary } : {}),
  }
}

/** The index's own prose (title, summary, free text) as a document, when it has any. */
function overviewOf(index: LlmsIndex, path: string): SourceDocument | undefined {
  const body = [index.summary, index.details].filter(Boolean).join('\n\n')
  if (!body) return undefined
  return { path, text: `# ${index.title || 'Overview'}\n\n${body}\n` }
}

interface FetchedPage {
  url: string
  doc: SourceDocument
}

/**
 * The linked pages of the index's own origin, at most maxPages and maxTotalBytes; the Optional
 * section is fetched only after the others, so a spent budget drops it first. A page that
 * fails is logged and skipped: one dead link does not fail the library.
 */
async function fetchLinked(index: LlmsIndex, rootUrl: string, options: Options, ctx: SourceContext): Promise<FetchedPage[]> {
  const origin = new URL(rootUrl).origin
  const seen = new Set<string>([normalizePageUrl(rootUrl)!])
  const targets: string[][] = [[], []]
  for (const link of index.links) {
    const url = normalizePageUrl(link.url)
    if (!url || new URL(url).origin !== origin || seen.has(url)) continue
    seen.add(url)
    targets[link.optional ? 1 : 0].push(url)
  }
  const budget = { pages: options.maxPages, bytes: options.maxTotalBytes }
  const pages: FetchedPage[] = []
  for (const group of targets) {
    const queue = [...group]
    const worker = async (): Promise<void> => {
      for (let url = queue.shift(); url !== undefined && budget.pages > 0 && budget.bytes > 0; url = queue.shift()) {
        budget.pages--
        const page = await fetchPage(url, options, ctx)
        if (!page) continue
        budget.bytes -= page.bytes
        pages.push(page)
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))
    ctx.progress(`fetched ${pages.length} pages`)
  }
  // Workers finish in any order; a stable order keeps the revision hash stable.
  return pages.sort((a, b) => a.url.localeCompare(b.url))
}

async function fetchPage(url: string, options: Options, ctx: SourceContext): Promise<(FetchedPage & { bytes: number }) | undefined> {
  let response: HttpResponse
  try {
    response = await ctx.http.get(url, { signal: ctx.signal, maxBytes: options.maxPageBytes })
  } catch (err) {
    if (ctx.signal.aborted) throw err
    ctx.log(`skipped ${url}: ${(err as Error).message}`)
    return undefined
  }
  const final = normalizePageUrl(response.url) ?? url
  let text = response.text()
  if (isHtml(response)) {
    try {
      text = (await ctx.parse('html', { html: text, url: final })).markdown
    } catch (err) {
      if (!(err instanceof ParseFailure)) throw err
      ctx.log(`skipped ${url}: it ${err.reason}`)
      return undefined
    }
  }
  return { url: final, bytes: response.body.length, doc: { path: pagePath(final), text } }
}
