/**
 * One order for every client (issue 10, items 6 and 7): the JSON answer's `rank` numbers both
 * arrays in one ranking with non-increasing `score`; the txt answer and the MCP tool show the
 * same snippets in that order, code and info interleaved as ranked; content repeated on several
 * pages is kept where it is explained, and the other pages are remembered in `alsoAt`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { TXT_SEPARATOR, type ContextResponse } from '../../src/index/render.js'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { suiteTeardown } from '../helpers/tmp.js'

const CART = "const cart = createCart({ currency: 'EUR' })\ncart.add({ sku: 'mug', quantity: 2 })"

const DOCS = {
  'docs/api/reference.md': `# API reference

## createCart

\`\`\`js
${CART}
\`\`\`
`,
  'docs/guide/usage.md': `# Using carts

## Usage example

Create a cart with the shop's currency, then add items to the cart by SKU and quantity; the cart keeps a running total.

\`\`\`js
${CART}
\`\`\`

## Cart totals

A cart recomputes its total whenever an item is added or removed, in the currency the cart was created with. Discounts apply to the cart total before tax.

## Checkout

Checkout turns the cart into an order and charges the customer for the cart total.

\`\`\`js
const order = await cart.checkout({ payment: 'card' })
\`\`\`
`,
}

const QUESTION = 'add items to a cart and get the cart total'

describe('the order of an answer', () => {
  const defer = suiteTeardown()
  let app: FastifyInstance
  let json: ContextResponse
  let txt: string

  beforeAll(async () => {
    app = await buildTestApp({ defer })
    await seedLibrary(app, '/acme/shop', DOCS)
    const jsonRes = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/shop', query: QUESTION, type: 'json' } })
    expect(jsonRes.statusCode, jsonRes.body).toBe(200)
    json = jsonRes.json()
    const txtRes = await app.inject({ url: '/api/v2/context', query: { libraryId: '/acme/shop', query: QUESTION } })
    expect(txtRes.statusCode, txtRes.body).toBe(200)
    txt = txtRes.body
  })

  /** Both arrays merged in Lectern's order: `code:<title>` or `info:<breadcrumb>`. */
  const rankedTitles = () =>
    [...json.codeSnippets.map((s) => ({ rank: s.rank, score: s.score, title: s.codeTitle, kind: 'code' })), ...json.infoSnippets.map((s) => ({ rank: s.rank, score: s.score, title: s.breadcrumb, kind: 'info' }))].sort((a, b) => a.rank - b.rank)

  it('numbers both JSON arrays in one ranking, best first, with non-increasing scores', () => {
    const ranked = rankedTitles()
    expect(ranked.map((r) => r.rank)).toEqual(ranked.map((_, i) => i + 1))
    for (let i = 1; i < ranked.length; i++) expect(ranked[i].score).toBeLessThanOrEqual(ranked[i - 1].score)
    expect(ranked[0].score).toBeGreaterThan(0)
    expect(new Set(ranked.map((r) => r.kind))).toEqual(new Set(['code', 'info']))
  })

  it('shows the txt blocks in the JSON ranking, code and info interleaved as ranked', () => {
    const headings = txt.split(TXT_SEPARATOR).map((block) => block.split('\n')[0])
    expect(headings).toEqual(rankedTitles().map((r) => `### ${r.title}`))
  })

  it('keeps repeated code where it is explained and remembers the other page', () => {
    const carts = json.codeSnippets.filter((s) => s.codeList[0].code === CART)
    expect(carts).toHaveLength(1)
    expect(carts[0]).toMatchObject({ codeTitle: 'Usage example', codeId: 'docs/guide/usage.md#usage-example', alsoAt: ['docs/api/reference.md#createcart'] })
    expect(carts[0].codeDescription).toContain('add items to the cart by SKU')
  })

  it('gives the MCP tool the txt answer, in the same order', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = app.server.address() as { port: number }
    const client = new Client({ name: 'lectern-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)))
    defer(() => client.close())
    const result = (await client.callTool({ name: 'query-docs', arguments: { libraryId: '/acme/shop', query: QUESTION } })) as { content: Array<{ text: string }> }
    expect(result.content.map((c) => c.text).join('\n')).toBe(txt)
  })
})
