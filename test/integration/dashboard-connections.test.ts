/** Stored connections through the dashboard API: added with their token sealed, listed without it, removed; bad input refused. */
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/app.js'
import { signIn } from '../helpers/session.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'

const TOKEN = 'glpat-dashboardSecret123'

describe('/api/connections', () => {
  it('adds a git host, Confluence and Notion connection, never answers a token, and removes one', async () => {
    const app = await buildTestApp()
    const cookies = await signIn(app)
    const git = await app.inject({ method: 'POST', url: '/api/connections', cookies, payload: { kind: 'git', name: 'gitlab', host: 'gitlab.example.com', token: TOKEN } })
    expect(git.statusCode, git.body).toBe(201)
    expect(git.json()).toMatchObject({ kind: 'git', name: 'gitlab', baseUrl: 'https://gitlab.example.com', email: null })
    const wiki = await app.inject({ method: 'POST', url: '/api/connections', cookies, payload: { kind: 'confluence', name: 'wiki', site: 'https://acme.atlassian.net', email: 'me@acme.com', token: TOKEN } })
    expect(wiki.statusCode, wiki.body).toBe(201)
    const notion = await app.inject({ method: 'POST', url: '/api/connections', cookies, payload: { kind: 'notion', name: 'ws', token: TOKEN } })
    expect(notion.json()).toMatchObject({ baseUrl: 'https://api.notion.com' })
    // The token is sealed in the store and opens to what was given.
    expect(await app.runtime.store.connections.token(INSTALL_CONNECTIONS, 'gitlab')).toBe(TOKEN)

    const list = await app.inject({ url: '/api/connections', cookies })
    expect(list.json().connections.map((c: { name: string }) => c.name).sort()).toEqual(['gitlab', 'wiki', 'ws'])
    for (const res of [git, wiki, notion, list]) expect(res.body).not.toContain(TOKEN)

    const removed = await app.inject({ method: 'DELETE', url: '/api/connections/gitlab', cookies })
    expect(removed.statusCode).toBe(200)
    expect(removed.json()).toMatchObject({ name: 'gitlab' })
    expect(removed.body).not.toContain(TOKEN)
    expect(await app.runtime.store.connections.get(INSTALL_CONNECTIONS, 'gitlab')).toBeUndefined()

    const events = (await app.runtime.store.audit.list({ action: 'connection' }, { limit: 10 })).reverse()
    expect(events.map((e) => [e.action, e.actor.kind, e.address, e.target, e.details.kind, e.details.baseUrl])).toEqual([
      ['connection.added', 'user', '127.0.0.1', 'connection gitlab', 'git', 'https://gitlab.example.com'],
      ['connection.added', 'user', '127.0.0.1', 'connection wiki', 'confluence', 'https://acme.atlassian.net'],
      ['connection.added', 'user', '127.0.0.1', 'connection ws', 'notion', 'https://api.notion.com'],
      ['connection.removed', 'user', '127.0.0.1', 'connection gitlab', 'git', 'https://gitlab.example.com'],
    ])
    expect(new Set(events.map((e) => e.actor.name)).size).toBe(1)
    expect(JSON.stringify(events)).not.toContain(TOKEN)
  })

  it('refuses no session 401, a member 403, and bad input 400 with nothing stored', async () => {
    const app = await buildTestApp()
    const admin = await signIn(app)
    const member = await signIn(app, 'member')
    const valid = { kind: 'git', name: 'gitlab', host: 'gitlab.example.com', token: TOKEN }
    expect((await app.inject({ method: 'POST', url: '/api/connections', payload: valid })).statusCode).toBe(401)
    expect((await app.inject({ method: 'POST', url: '/api/connections', payload: valid, cookies: member })).statusCode).toBe(403)
    for (const payload of [
      { ...valid, token: '' },
      { ...valid, kind: 'svn' },
      { ...valid, name: 'has space' },
      { kind: 'git', name: 'nohost', token: TOKEN },
      { kind: 'confluence', name: 'cloud', site: 'https://acme.atlassian.net', token: TOKEN },
    ]) {
      const res = await app.inject({ method: 'POST', url: '/api/connections', payload, cookies: admin })
      expect(res.statusCode, JSON.stringify(payload)).toBe(400)
      expect(res.json().error).toBe('validation_error')
      expect(res.body).not.toContain(TOKEN)
    }
    expect(await app.runtime.store.connections.list(INSTALL_CONNECTIONS)).toEqual([])
    await app.inject({ method: 'POST', url: '/api/connections', payload: valid, cookies: admin })
    const twice = await app.inject({ method: 'POST', url: '/api/connections', payload: valid, cookies: admin })
    expect(twice.json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining('already exists') })
    expect((await app.inject({ method: 'DELETE', url: '/api/connections/nope', cookies: admin })).statusCode).toBe(404)
    const events = await app.runtime.store.audit.list({ action: 'connection' }, { limit: 10 })
    expect(events.map((e) => [e.action, e.target])).toEqual([['connection.added', 'connection gitlab']])
  })
})
