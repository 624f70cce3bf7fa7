/**
 * Browsing a library's snippets by page of its docs: the pages of the live set, then one page's
 * snippets in page order; the README's curl example of it, run as written.
 */
import { execa } from 'execa'
import { describe, expect, it } from 'vitest'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { addRepo, buildTestApp, createKey, seedLibrary, waitForLibrary } from '../helpers/app.js'
import { makeGitRepo } from '../helpers/git.js'
import { codeBlocks, readmeSection } from '../helpers/readme.js'
import { signIn } from '../helpers/session.js'
import { setProcessEnv, tmpDir } from '../helpers/tmp.js'

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
    await app.runtime.store.libraries.create({ id: '/acme/fresh', title: 'fresh', sourceKind: 'github', sourceUrl: 'https://github.com/acme/fresh' })
    const fresh = (await app.runtime.store.libraries.byId('/acme/fresh'))!
    await app.runtime.store.libraries.ensureVersion(fresh.pk, '')
    const waiting = await app.inject({ url: '/api/libraries/acme/fresh/pages', cookies: admin })
    expect(waiting.statusCode).toBe(202)
    expect(waiting.json().error).toBe('library_not_finalized')
    // A library whose job failed answers its failure, as /v2/context does, not "not finished yet".
    await app.runtime.store.libraries.setVersionState((await app.runtime.store.libraries.version(fresh.pk, ''))!.pk, 'error', { code: 'source_unreachable', message: 'git clone failed' })
    const failed = await app.inject({ url: '/api/libraries/acme/fresh/pages', cookies: admin })
    expect(failed.statusCode).toBe(500)
    expect(failed.json()).toMatchObject({ error: 'source_unreachable', message: expect.stringContaining('lectern refresh /acme/fresh') })
  })
})

describe("the README's curl example of the pages", () => {
  it('signs in, lists the pages and reads one by its path in the repository, as written, against a git library', async () => {
    const example = codeBlocks('bash', readmeSection('Dashboard API')).find((block) => block.includes('/pages'))!
    const commands = example.replaceAll('\\\n', ' ').trim().split('\n')
    expect(commands).toHaveLength(3)
    const remotes = await tmpDir('lectern-remotes-')
    await makeGitRepo({ 'README.md': '# Fastify\n\n## Register a route\n\nDeclare a route with its schema:\n\n```js\nfastify.get(\'/\', async () => ({ hello: \'world\' }))\n```\n', 'docs/README.md': '# Docs\n\n## Hooks\n\nHooks run at points of the lifecycle:\n\n```js\nfastify.addHook(\'onRequest\', async () => {})\n```\n' }, { parent: path.join(remotes, 'fastify'), name: 'fastify' })
    // github.com/<owner>/<repo> is the local repository under remotes/<owner>/<repo>.
    setProcessEnv({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: `url.${pathToFileURL(remotes).href}/.insteadOf`, GIT_CONFIG_VALUE_0: 'https://github.com/' })
    const app = await buildTestApp()
    expect((await addRepo(app, await createKey(app), 'https://github.com/fastify/fastify')).statusCode).toBe(200)
    const ingested = await waitForLibrary(app, '/fastify/fastify')
    expect(ingested.state, ingested.errorMessage ?? '').toBe('finalized')
    const { email, password } = JSON.parse(/-d '(\{.*\})'/.exec(commands[0]!)![1]!) as { email: string; password: string }
    await app.runtime.store.users.create({ email, password, role: 'admin' })
    const base = await app.listen({ host: '127.0.0.1', port: 0 })
    const cwd = await tmpDir()
    const run = async (command: string) => JSON.parse((await execa('bash', ['-c', command.replaceAll('http://127.0.0.1:3000', base)], { cwd })).stdout) as Record<string, unknown>
    expect(await run(commands[0]!)).toMatchObject({ email, role: 'admin' })
    // A git library's pages are named by their web links, at the commit the set was built from.
    const { pages } = (await run(commands[1]!)) as { pages: Array<{ page: string }> }
    const readme = pages.find((p) => /^https:\/\/github\.com\/fastify\/fastify\/blob\/[0-9a-f]{40}\/README\.md$/.test(p.page))
    expect(readme, JSON.stringify(pages)).toBeDefined()
    // The example names the page by its path, which outlives a new commit: the repository's own README, not docs/README.md.
    const page = await run(commands[2]!)
    expect(page).toMatchObject({ page: readme!.page, snippets: [expect.objectContaining({ kind: 'code', title: expect.stringContaining('Register a route') })] })
    const nested = await app.inject({ url: '/api/libraries/fastify/fastify/pages/snippets', query: { page: 'docs/README.md' }, cookies: await signIn(app) })
    expect(nested.json().snippets[0].title).toContain('Hooks')
  })
})
