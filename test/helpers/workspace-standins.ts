/**
 * Loopback STAND-INS for Confluence and Notion, which cannot run here. Each speaks only the
 * subset of the documented REST API that Lectern calls, with the documented paging (Confluence
 * Cloud v2 `_links.next` cursors, Data Center start/limit/size, Notion has_more/next_cursor),
 * checks the auth header, and records every request so tests can assert on them.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { onTestFinished } from 'vitest'
import type { Defer } from './tmp.js'

export interface StandIn {
  url: string
  /** Every request: path with query, and its Authorization header. */
  requests: Array<{ path: string; authorization?: string }>
}

async function listen(handler: (req: http.IncomingMessage, url: URL) => { status: number; body: unknown }, defer: Defer): Promise<StandIn> {
  const requests: StandIn['requests'] = []
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    requests.push({ path: `${url.pathname}${url.search}`, authorization: req.headers.authorization })
    const { status, body } = handler(req, url)
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  defer(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

export interface ConfluencePageFixture {
  id: string
  title: string
  parentId?: string
  version?: number
  storage: string
}

export interface ConfluenceStandInOptions {
  flavor: 'cloud' | 'datacenter'
  spaceKey: string
  pages: ConfluencePageFixture[]
  token: string
  /** Cloud signs in with email + token (Basic); Data Center with the token alone (Bearer). */
  email?: string
  /** Most pages the stand-in returns per request, whatever the client asks for, to force paging. */
  pageSize?: number
}

const SPACE_ID = '98304'

export function confluenceStandIn(options: ConfluenceStandInOptions, defer: Defer = onTestFinished): Promise<StandIn> {
  const pageSize = options.pageSize ?? 2
  const expected = options.flavor === 'cloud'
    ? `Basic ${Buffer.from(`${options.email}:${options.token}`).toString('base64')}`
    : `Bearer ${options.token}`
  const byId = new Map(options.pages.map((p) => [p.id, p]))
  const ancestors = (page: ConfluencePageFixture) => {
    const trail: Array<{ id: string; title: string }> = []
    for (let parent = page.parentId ? byId.get(page.parentId) : undefined; parent; parent = parent.parentId ? byId.get(parent.parentId) : undefined) {
      trail.unshift({ id: parent.id, title: parent.title })
    }
    return trail
  }
  const cloudPage = (p: ConfluencePageFixture) => ({
    id: p.id,
    status: 'current',
    title: p.title,
    spaceId: SPACE_ID,
    parentId: p.parentId ?? null,
    version: { number: p.version ?? 1 },
    body: { storage: { representation: 'storage', value: p.storage } },
    _links: { webui: `/spaces/${options.spaceKey}/pages/${p.id}/${encodeURIComponent(p.title.replace(/ /g, '+'))}` },
  })
  const dcPage = (p: ConfluencePageFixture) => ({
    id: p.id,
    type: 'page',
    title: p.title,
    version: { number: p.version ?? 1 },
    ancestors: ancestors(p),
    body: { storage: { value: p.storage, representation: 'storage' } },
    _links: { webui: `/pages/viewpage.action?pageId=${p.id}` },
  })
  let origin = ''
  return listen((req, url) => {
    if (req.headers.authorization !== expected) return { status: 401, body: { statusCode: 401, message: 'Unauthorized' } }
    const path = url.pathname
    if (options.flavor === 'cloud' && path.startsWith('/wiki/api/v2/')) {
      if (path === '/wiki/api/v2/spaces') {
        const keys = url.searchParams.get('keys')
        const results = !keys || keys === options.spaceKey ? [{ id: SPACE_ID, key: options.spaceKey, name: `${options.spaceKey} space` }] : []
        return { status: 200, body: { results, _links: { base: `${origin}/wiki` } } }
      }
      if (path === `/wiki/api/v2/spaces/${SPACE_ID}/pages`) {
        const start = Number(url.searchParams.get('cursor') ?? 0)
        const slice = options.pages.slice(start, start + pageSize)
        const more = start + pageSize < options.pages.length
        const next = more ? `/wiki/api/v2/spaces/${SPACE_ID}/pages?body-format=storage&limit=${url.searchParams.get('limit')}&cursor=${start + pageSize}` : undefined
        return { status: 200, body: { results: slice.map(cloudPage), _links: { base: `${origin}/wiki`, ...(next ? { next } : {}) } } }
      }
      const single = /^\/wiki\/api\/v2\/pages\/(\d+)$/.exec(path)
      const page = single && byId.get(single[1])
      if (page) return { status: 200, body: { ...cloudPage(page), _links: { ...cloudPage(page)._links, base: `${origin}/wiki` } } }
      return { status: 404, body: { errors: [{ status: 404, title: 'Not Found' }] } }
    }
    if (options.flavor === 'datacenter' && path === '/rest/api/content') {
      if (url.searchParams.get('spaceKey') !== options.spaceKey) return { status: 200, body: { results: [], start: 0, limit: 25, size: 0 } }
      const start = Number(url.searchParams.get('start') ?? 0)
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 25), pageSize)
      const results = options.pages.slice(start, start + limit).map(dcPage)
      return { status: 200, body: { results, start, limit, size: results.length, _links: { base: origin, context: '' } } }
    }
    const dc = options.flavor === 'datacenter' && /^\/rest\/api\/content\/(\d+)$/.exec(path)
    const page = dc && byId.get(dc[1])
    if (page) return { status: 200, body: { ...dcPage(page), _links: { ...dcPage(page)._links, base: origin } } }
    return { status: 404, body: { statusCode: 404, message: 'No content found' } }
  }, defer).then((standIn) => {
    origin = standIn.url
    return standIn
  })
}

export interface NotionBlockFixture {
  type: string
  /** The block's type-specific object, e.g. `{ rich_text: [...] }`. */
  value: Record<string, unknown>
  children?: NotionBlockFixture[]
}

export interface NotionPageFixture {
  id: string
  title: string
  lastEdited?: string
  blocks: NotionBlockFixture[]
}

export const rich = (text: string, annotations: Partial<Record<'bold' | 'italic' | 'code' | 'strikethrough', boolean>> = {}, href: string | null = null) => ({
  type: 'text',
  text: { content: text, link: href ? { url: href } : null },
  annotations: { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: 'default', ...annotations },
  plain_text: text,
  href,
})

export const block = (type: string, value: Record<string, unknown>, children?: NotionBlockFixture[]): NotionBlockFixture => ({ type, value, children })
export const textBlock = (type: string, text: string, children?: NotionBlockFixture[]) => block(type, { rich_text: [rich(text)], color: 'default' }, children)

/** The Notion stand-in: pages.retrieve and blocks.children.list, `pageSize` results per cursor page. */
export function notionStandIn(options: { token: string; pages: NotionPageFixture[]; pageSize?: number }, defer: Defer = onTestFinished): Promise<StandIn> {
  const pageSize = options.pageSize ?? 2
  const pages = new Map(options.pages.map((p) => [p.id, p]))
  const children = new Map<string, Array<Record<string, unknown>>>()
  let counter = 0
  const register = (parentId: string, blocks: NotionBlockFixture[]) => {
    children.set(parentId, blocks.map((b) => {
      const id = `0000000${++counter}`.slice(-8) + '-0000-4000-8000-000000000000'
      if (b.children?.length) register(id, b.children)
      const childPage = b.type === 'child_page' ? String(b.value.id) : undefined
      return { object: 'block', id: childPage ?? id, type: b.type, [b.type]: b.value, has_children: Boolean(b.children?.length) || Boolean(childPage), archived: false, in_trash: false, parent: { type: 'block_id', block_id: parentId } }
    }))
  }
  for (const page of options.pages) register(page.id, page.blocks)
  return listen((req, url) => {
    if (req.headers.authorization !== `Bearer ${options.token}`) {
      return { status: 401, body: { object: 'error', status: 401, code: 'unauthorized', message: 'API token is invalid.' } }
    }
    const pageMatch = /^\/v1\/pages\/([\w-]+)$/.exec(url.pathname)
    if (pageMatch) {
      const page = pages.get(pageMatch[1])
      if (!page) return { status: 404, body: { object: 'error', status: 404, code: 'object_not_found', message: 'Could not find page.' } }
      return {
        status: 200,
        body: {
          object: 'page',
          id: page.id,
          url: `https://www.notion.so/${page.title.replace(/\W+/g, '-')}-${page.id.replace(/-/g, '')}`,
          last_edited_time: page.lastEdited ?? '2026-01-01T00:00:00.000Z',
          created_time: '2026-01-01T00:00:00.000Z',
          archived: false,
          in_trash: false,
          properties: { title: { id: 'title', type: 'title', title: [rich(page.title)] } },
        },
      }
    }
    const childrenMatch = /^\/v1\/blocks\/([\w-]+)\/children$/.exec(url.pathname)
    if (childrenMatch && children.has(childrenMatch[1])) {
      const all = children.get(childrenMatch[1])!
      const start = Number(url.searchParams.get('start_cursor') ?? 0)
      const more = start + pageSize < all.length
      return { status: 200, body: { object: 'list', results: all.slice(start, start + pageSize), has_more: more, next_cursor: more ? String(start + pageSize) : null, type: 'block', block: {} } }
    }
    return { status: 404, body: { object: 'error', status: 404, code: 'object_not_found', message: 'Could not find block.' } }
  }, defer)
}
