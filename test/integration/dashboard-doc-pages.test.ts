/**
 * Browsing a library's snippets by page of its docs: the pages of the live set, then one page's
 * snippets in page order; the README's curl example of it, run as written.
 */
import { execa } from 'execa'
import { describe, expect, it } from 'vitest'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { codeBlocks, readmeSection } from '../helpers/readme.js'
import { signIn } from '../helpers/session.js'
import { tmpDir } from '../helpers/tmp.js'

const DOCS = {
  'docs/guide.md': '# Guide\n\n## Draw\n\nDraw a widget on the canvas.\n\n```js\ndrawWidget(canvas)\n```\n\n## Remove\n\nRemove a widget when done.\n\n```js\nremoveWidget(w)\n```\n',
  'docs/faq.md': '# FAQ\n\n## Why widgets\n\nWidgets are the unit of drawing in this library, each with its own canvas.\n\n```js\nconst w = createWidget({ size: 3 })\n```\n',
}

describe('GET /api/libraries/:owner/:name/pages', () => {
  it('lists the pages with their snippet counts, and a page\'s snippets in page order', async () => {
    const app = await buildTestApp()
    await seedLibrary(app, '/acme/widgets', DOCS)
    const cookies = await signIn(app)
    const pages = await app.inject({ url: '/api/libraries/acme/widgets/pages', cookies })
    expect(pages.statusCode, pages.body).toBe(200)
    expect(pages.json().pages).toEqual([
      { page: 'docs/faq.md', title: 'FAQ', snippets: expect.any(Number) },
      { page: 'docs/guide.md', title: 'Guide', snippets: expect.any(Number) },
    ])
    const guide = await app.inject({ url: '/api/libraries/acme/widgets/pages/snippets', query: { page: 'docs/guide.md' }, cookies })
    expect(guide.statusCode, guide.body).toBe(200)
    const snippets = guide.json().snippets as Array<{ kind: string; title: string; source: string; codeList?: Array<{ code: string }> }>
    const code = snippets.filter((s) => s.kind === 'code')
    expect(code.map((s) => s.codeList![0]!.code)).toEqual(['drawWidget(canvas)', 'removeWidget(w)'])
    expect(snippets.every((s) => s.source.startsWith('docs/guide.md#'))).toBe(true)
    expect(pages.json().pages[1].snippets).toBe(snippets.length)
  })

  it('refuses no session 401, a member 403, a missing page 404, no page 400, and a library being made 202', async () => {
    const app = await buildTestApp()
    await seedLibrary(app, '/acme/widgets', DOCS)
    const admin = await signIn(app)
    const member = await signIn(app, 'member')
    expect((await app.inject({ url: '/api/libraries/acme/widgets/pages' })).statusCode).toBe(401)
    expect((await app.inject({ url: '/api/libraries/acme/widgets/pages', cookies: member })).statusCode).toBe(403)
    const missing = await app.inject({ url: '/api/libraries/acme/widgets/pages/snippets', query: { page: 'docs/nope.md' }, cookies: admin })
    expect(missing.statusCode).toBe(404)
    expect(missing.json()).toMatchObject({ error: 'not_found', message: expect.stringContaining('docs/nope.md') })
    const noPage = await app.inject({ url: '/api/libraries/acme/widgets/pages/snippets', cookies: admin })
    expect(noPage.statusCode).toBe(400)
    expect(noPage.json().error).toBe('validation_error')
    expect((await app.inject({ url: '/api/libraries/acme/nothing/pages', cookies: admin })).json().error).toBe('library_not_found')
    expect((await app.inject({ url: '/api/libraries/acme/widgets/pages', query: { version: 'v9' }, cookies: admin })).json().error).toBe('tag_not_found')
    app.runtime.store.libraries.create({ id: '/acme/fresh', title: 'fresh', sourceKind: 'github', sourceUrl: 'https://github.com/acme/fresh' })
    const fresh = app.runtime.store.libraries.byId('/acme/fresh')!
    app.runtime.store.libraries.ensureVersion(fresh.pk, '')
    const waiting = await app.inject({ url: '/api/libraries/acme/fresh/pages', cookies: admin })
    expect(waiting.statusCode).toBe(202)
    expect(waiting.json().error).toBe('library_not_finalized')
  })
})

describe("the README's curl example of the pages", () => {
  it('signs in, lists the pages and reads one page, as written against a listening server', async () => {
    const example = codeBlocks('bash', readmeSection('Dashboard API')).find((block) => block.includes('/pages'))!
    const commands = example.replaceAll('\\\n', ' ').trim().split('\n')
    expect(commands).toHaveLength(3)
    const app = await buildTestApp({ startWorker: false })
    await seedLibrary(app, '/fastify/fastify', { 'README.md': '# Fastify\n\n## Register a route\n\nDeclare a route with its schema:\n\n```js\nfastify.get(\'/\', async () => ({ hello: \'world\' }))\n```\n' })
    const { email, password } = JSON.parse(/-d '(\{.*\})'/.exec(commands[0]!)![1]!) as { email: string; password: string }
    await app.runtime.store.users.create({ email, password, role: 'admin' })
    const base = await app.listen({ host: '127.0.0.1', port: 0 })
    const cwd = await tmpDir()
    const run = async (command: string) => JSON.parse((await execa('bash', ['-c', command.replaceAll('http://127.0.0.1:3000', base)], { cwd })).stdout) as Record<string, unknown>
    expect(await run(commands[0]!)).toMatchObject({ email, role: 'admin' })
    expect(await run(commands[1]!)).toEqual({ pages: [{ page: 'README.md', title: 'Fastify', snippets: expect.any(Number) }] })
    const page = await run(commands[2]!)
    expect(page).toMatchObject({ page: 'README.md', snippets: expect.arrayContaining([expect.objectContaining({ kind: 'code', title: expect.stringContaining('Register a route') })]) })
  })
})
