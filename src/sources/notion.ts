/**
 * Notion pages through a stored connection (`lectern connections add notion`), read with the
 * official client over Lectern's HTTP client (timeouts, body caps, retries, the address guard).
 * Each page becomes one Markdown document headed by its title; child pages become documents of
 * their own, up to a bounded depth and count.
 */
import { createHash } from 'node:crypto'
import {
  APIResponseError,
  Client,
  isFullBlock,
  isFullPage,
  LogLevel,
  type BlockObjectResponse,
  type PageObjectResponse,
  type RichTextItemResponse,
} from '@notionhq/client'
import { z } from 'zod'
import { refuseCleartextConnection } from './connections.js'
import { LecternError } from '../errors.js'
import { slugifySegment } from '../library/id.js'
import type { Connection, ConnectionScope } from '../store/connections.js'
import type { Store } from '../store/index.js'
import { storedConnectionRefusal } from '../tenancy/stored-connections.js'
import type { FetchedSource, SourceContext, SourceReader, SourceSubmission } from './types.js'
import { maxOf } from '../text/arrays.js'

export const notionSpec = z.object({
  type: z.literal('notion'),
  connection: z.string().min(1),
  pageIds: z.array(z.string().regex(/^[0-9a-fA-F-]{32,36}$/, 'a page ID is 32 hex digits, dashes optional')).min(1).max(500),
  title: z.string().optional(),
})

export type NotionSpec = z.infer<typeof notionSpec>

/** Bounds on what one source reads: child pages followed, block nesting, blocks in all. */
export const NOTION_LIMITS = { pages: 200, pageDepth: 3, blockDepth: 8, blocks: 20_000 }

type NotionFetch = NonNullable<NonNullable<ConstructorParameters<typeof Client>[0]>['fetch']>

interface BlockTree {
  block: BlockObjectResponse
  children: BlockTree[]
}

interface NotionPage {
  id: string
  title: string
  url: string
  lastEdited: string
  markdown: string
}

/** Lectern's HTTP client in the shape of the `fetch` the Notion client accepts. */
function notionFetch(ctx: SourceContext): NotionFetch {
  return async (url, init) => {
    const response = await ctx.http.request(url, {
      method: init?.method === 'POST' ? 'POST' : 'GET',
      headers: init?.headers,
      body: typeof init?.body === 'string' ? init.body : undefined,
      signal: ctx.signal,
    })
    return {
      ok: response.status >= 200 && response.status < 300,
      status: response.status,
      headers: response.headers,
      text: async () => response.text(),
      body: null,
    }
  }
}

function notionError(err: unknown, connection: Connection, pageId?: string): unknown {
  if (!(err instanceof APIResponseError)) return err
  if (err.status === 401 || err.status === 403) {
    return new LecternError(
      'source_unreachable',
      `Notion at ${connection.baseUrl} refused the token of connection "${connection.name}" (HTTP ${err.status}). Check the integration token; to replace it run \`lectern connections remove ${connection.name}\` and add it again.`,
    )
  }
  if (err.status === 404 && pageId) {
    return new LecternError('source_unreachable', `Notion page ${pageId} was not found, or is not shared with the integration of connection "${connection.name}".`)
  }
  return new LecternError('source_unreachable', `Notion at ${connection.baseUrl} answered ${err.status} (${err.code}).`)
}

const plain = (rich: RichTextItemResponse[]) => rich.map((r) => r.plain_text).join('')

/** Rich text with its annotations; code spans stay unescaped so identifiers read as written. */
function richText(rich: RichTextItemResponse[]): string {
  return rich
    .map((item) => {
      let text = item.plain_text
      if (text.trim() === '') return text
      const { bold, italic, strikethrough, code } = item.annotations
      if (code) text = `\`${text}\``
      if (bold) text = `**${text}**`
      if (italic) text = `_${text}_`
      if (strikethrough) text = `~~${text}~~`
      return item.href ? `[${text}](${item.href})` : text
    })
    .join('')
}

function pageTitle(page: PageObjectResponse): string {
  const property = Object.values(page.properties).find((p) => p.type === 'title')
  const title = property?.type === 'title' ? plain(property.title).trim() : ''
  return title || 'Untitled'
}

/** Notion names languages for people ("plain text", "c++"); Markdown fences want one word. */
function fenceLanguage(language: string): string {
  return language === 'plain text' ? '' : language.replace(/\s+/g, '-')
}

const indent = (text: string, by: string) => text.split('\n').map((line) => (line ? by + line : line)).join('\n')

function renderTable(tree: BlockTree): string {
  const rows = tree.children.flatMap(({ block }) =>
    block.type === 'table_row' ? [block.table_row.cells.map((cell) => plain(cell).replace(/\s+/g, ' ').replace(/\|/g, '\\|'))] : [],
  )
  if (rows.length === 0) return ''
  const width = maxOf(rows.map((r) => r.length), 0)
  const line = (r: string[]) => `| ${[...r, ...Array(width - r.length).fill('')].join(' | ')} |`
  return [line(rows[0]), line(Array(width).fill('---')), ...rows.slice(1).map(line)].join('\n')
}

/** One block as Markdown; list items indent their children under the marker. */
function renderBlock(tree: BlockTree, number: number): string {
  const { block } = tree
  const children = () => renderBlocks(tree.children)
  const item = (marker: string, text: string) => {
    const nested = children()
    return `${marker}${text}${nested ? `\n${indent(nested, ' '.repeat(marker.length))}` : ''}`
  }
  const withChildren = (text: string) => [text, children()].filter(Boolean).join('\n\n')
  switch (block.type) {
    case 'paragraph':
      return withChildren(richText(block.paragraph.rich_text))
    case 'heading_1':
      return withChildren(`## ${richText(block.heading_1.rich_text)}`)
    case 'heading_2':
      return withChildren(`### ${richText(block.heading_2.rich_text)}`)
    case 'heading_3':
      return withChildren(`#### ${richText(block.heading_3.rich_text)}`)
    case 'bulleted_list_item':
      return item('- ', richText(block.bulleted_list_item.rich_text))
    case 'numbered_list_item':
      return item(`${number}. `, richText(block.numbered_list_item.rich_text))
    case 'to_do':
      return item(block.to_do.checked ? '- [x] ' : '- [ ] ', richText(block.to_do.rich_text))
    case 'quote':
      return indent(withChildren(richText(block.quote.rich_text)), '> ')
    case 'callout': {
      const icon = block.callout.icon?.type === 'emoji' ? `${block.callout.icon.emoji} ` : ''
      return indent(withChildren(`${icon}${richText(block.callout.rich_text)}`), '> ')
    }
    case 'toggle':
      return withChildren(`**${richText(block.toggle.rich_text)}**`)
    case 'code':
      return `\`\`\`${fenceLanguage(block.code.language)}\n${plain(block.code.rich_text)}\n\`\`\``
    case 'table':
      return renderTable(tree)
    case 'divider':
      return '---'
    case 'equation':
      return `$$${block.equation.expression}$$`
    case 'bookmark':
      return `[${plain(block.bookmark.caption) || block.bookmark.url}](${block.bookmark.url})`
    case 'child_page':
      return `[${block.child_page.title}](https://www.notion.so/${block.id.replace(/-/g, '')})`
    case 'column_list':
    case 'column':
    case 'synced_block':
      return children()
    default:
      // Media, embeds and databases have no text worth indexing.
      return ''
  }
}

const LIST_ITEMS = new Set(['bulleted_list_item', 'numbered_list_item', 'to_do'])

function renderBlocks(trees: BlockTree[]): string {
  const parts: string[] = []
  let number = 0
  trees.forEach((tree, i) => {
    const type = tree.block.type
    number = type === 'numbered_list_item' ? number + 1 : 0
    const text = renderBlock(tree, number)
    if (!text) return
    // Items of one list stay together; everything else is its own paragraph.
    const sameList = LIST_ITEMS.has(type) && trees[i - 1]?.block.type === type
    parts.push(sameList ? `\n${text}` : `\n\n${text}`)
  })
  return parts.join('').trim()
}

/** Reads a page's blocks, all cursor pages of each level, within NOTION_LIMITS. */
class BlockReader {
  private blocks = 0
  readonly childPages: Array<{ id: string; depth: number }> = []

  constructor(private readonly client: Client) {}

  async read(blockId: string, depth: number, pageDepth: number): Promise<BlockTree[]> {
    const trees: BlockTree[] = []
    let cursor: string | undefined
    do {
      const response = await this.client.blocks.children.list({ block_id: blockId, page_size: 100, ...(cursor ? { start_cursor: cursor } : {}) })
      for (const block of response.results) {
        if (!isFullBlock(block) || this.blocks >= NOTION_LIMITS.blocks) continue
        this.blocks++
        trees.push({ block, children: [] })
      }
      cursor = response.has_more && response.next_cursor ? response.next_cursor : undefined
    } while (cursor && this.blocks < NOTION_LIMITS.blocks)
    for (const tree of trees) {
      if (tree.block.type === 'child_page') this.childPages.push({ id: tree.block.id, depth: pageDepth + 1 })
      else if (tree.block.has_children && depth < NOTION_LIMITS.blockDepth) tree.children = await this.read(tree.block.id, depth + 1, pageDepth)
    }
    return trees
  }
}

async function readPages(client: Client, connection: Connection, spec: NotionSpec, ctx: SourceContext): Promise<NotionPage[]> {
  const reader = new BlockReader(client)
  const queue = spec.pageIds.map((id) => ({ id, depth: 0 }))
  const seen = new Set<string>()
  const pages: NotionPage[] = []
  while (queue.length > 0 && pages.length < NOTION_LIMITS.pages) {
    const { id, depth } = queue.shift()!
    const key = id.replace(/-/g, '').toLowerCase()
    if (seen.has(key)) continue
    seen.add(key)
    try {
      const page = await client.pages.retrieve({ page_id: id })
      if (!isFullPage(page)) continue
      const blocks = await reader.read(id, 0, depth)
      pages.push({ id: key, title: pageTitle(page), url: page.url, lastEdited: page.last_edited_time, markdown: renderBlocks(blocks) })
      ctx.progress(`read ${pages.length} Notion pages`)
    } catch (err) {
      throw notionError(err, connection, id)
    }
    queue.push(...reader.childPages.splice(0).filter((child) => child.depth <= NOTION_LIMITS.pageDepth))
  }
  if (queue.length > 0) ctx.log(`more than ${NOTION_LIMITS.pages} Notion pages; the rest were not read`)
  return pages
}

/** Changes when a page is added, removed or edited. */
function revisionOf(pages: NotionPage[]): string {
  const marks = pages.map((p) => `${p.id}:${p.lastEdited}`).sort()
  return createHash('sha256').update(marks.join('\n')).digest('hex').slice(0, 32)
}

export const readNotion: SourceReader<{ type: string } & Record<string, unknown>> = async (raw, ctx): Promise<FetchedSource> => {
  const spec = notionSpec.parse(raw)
  if (!ctx.connections) throw storedConnectionRefusal('Notion')
  const connection = await ctx.store.connections.get(ctx.connections, spec.connection)
  if (!connection || connection.kind !== 'notion') {
    throw new LecternError('validation_error', `No Notion connection named "${spec.connection}". Add it with \`lectern connections add notion\`.`)
  }
  refuseCleartextConnection(connection, ctx.guard)
  const client = new Client({
    auth: await ctx.store.connections.token(ctx.connections, connection.name),
    baseUrl: connection.baseUrl,
    fetch: notionFetch(ctx),
    // Lectern's HTTP client already retries 429 and 5xx with backoff.
    retry: false,
    logLevel: LogLevel.WARN,
    // Only the message: the client's extra info may carry request details.
    logger: (level, message) => ctx.log(`notion ${level}: ${message}`),
  })
  ctx.progress(`reading ${spec.pageIds.length} Notion pages`)
  const pages = await readPages(client, connection, spec, ctx)
  const paths = new Map(pages.map((p) => [`${p.id}-${slugifySegment(p.title)}.md`, p]))
  return {
    documents: [...paths].map(([path, page]) => ({ path, text: `# ${page.title}\n\n${page.markdown}\n` })),
    // Notion anchors are block IDs, not heading slugs, so a snippet links to its page.
    locate: (path) => paths.get(path)?.url ?? path,
    title: spec.title ?? pages[0]?.title,
    revision: revisionOf(pages),
  }
}

export interface NotionInput {
  connection: string
  pageIds: string[]
  title?: string
  description?: string
}

/**
 * `/notion/<slug of the title>`; without a title (CLI only: the API requires one), the
 * connection's name stands in, so a second page set of one workspace needs --title.
 */
export function notionLibraryId(connection: string, title?: string): string {
  return `/notion/${slugifySegment(title?.trim() || connection)}`
}

/** The connection of `scope` for a workspace: the one named like it (or like its slug), else its only Notion connection. */
export async function notionConnectionForWorkspace(store: Store, scope: ConnectionScope, workspaceName: string): Promise<Connection | undefined> {
  const all = await store.connections.list(scope, 'notion')
  const named = all.find((c) => c.name === workspaceName || c.name.toLowerCase() === slugifySegment(workspaceName))
  return named ?? (all.length === 1 ? all[0] : undefined)
}

/** Checks the input and its connection now, so a mistake is a 400 at submit rather than a failed job. */
export async function notionSubmission(store: Store, scope: ConnectionScope, input: NotionInput): Promise<SourceSubmission> {
  const connection = await store.connections.get(scope, input.connection)
  if (!connection || connection.kind !== 'notion') {
    throw new LecternError('validation_error', `No Notion connection named "${input.connection}". Add it with \`lectern connections add notion --name ${input.connection} --token-env NOTION_TOKEN\`.`)
  }
  const title = input.title?.trim() || undefined
  const parsed = notionSpec.safeParse({ type: 'notion', connection: connection.name, pageIds: input.pageIds, ...(title ? { title } : {}) })
  if (!parsed.success) throw new LecternError('validation_error', `Invalid Notion source: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
  return {
    libraryId: notionLibraryId(connection.name, title),
    title: title ?? connection.name,
    description: input.description,
    sourceKind: 'notion',
    sourceUrl: `notion:${connection.name} (${parsed.data.pageIds.length} pages)`,
    spec: parsed.data,
    // Workspace pages sit behind a login at their source; only key holders see them here too.
    isPrivate: true,
  }
}
