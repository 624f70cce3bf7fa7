/** Browsing a library's snippets by page of its docs: the pages of the live set, then one page's snippets in page order. */
import { describe, expect, it } from 'vitest'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { signIn } from '../helpers/session.js'

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
