/**
 * Confluence and Notion end to end over the API: POST /v2/add/confluence and /v2/add/notion,
 * the worker reading loopback STAND-INS of Confluence (Cloud and Data Center) and Notion
 * (neither can run here), then questions through GET /v2/context. Also the failures a user
 * meets: an unknown connection, a refused token, an unreachable site; and that the token
 * never shows in logs, job errors or the database file.
 */
import fs from 'node:fs'
import { PassThrough } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { freePort } from '../helpers/server.js'
import { suiteTeardown } from '../helpers/tmp.js'
import { block, confluenceStandIn, notionStandIn, rich, textBlock } from '../helpers/workspace-standins.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'
import { sqliteOf } from '../../src/store/index.js'

const defer = suiteTeardown()
const CLOUD_TOKEN = 'ATATT3xFfGF0-cloud-token-91c2'
const DC_TOKEN = 'dc-pat-NjQ4MzQ1Nzg5MDEy'
const NOTION_TOKEN = 'secret_ntn_4b7e2f0a9d'
const TOKENS = [CLOUD_TOKEN, DC_TOKEN, NOTION_TOKEN]
const NOTION_PAGE = '3c2e3d4c-5b6a-4798-8a1f-2e3d4c5b6a79'

let app: FastifyInstance
let key: string
let logText = ''
let cloudUrl: string

const kubectlPage = `<p>Deployments roll out through the release pipeline, which applies the manifests with kubectl to every cluster.</p>
<h2>Scale a deployment</h2><p>Change the replica count of a running deployment without editing its manifest:</p>
<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">bash</ac:parameter><ac:plain-text-body><![CDATA[kubectl scale deployment/billing --replicas=5]]></ac:plain-text-body></ac:structured-macro>`

const pagerPage = `<h2>Escalation</h2><p>When the primary on-call engineer does not acknowledge a page within fifteen minutes, the secondary is paged automatically.</p>`

function post(url: string, payload: Record<string, unknown>, withKey = true) {
  return app.inject({ method: 'POST', url, payload, headers: withKey ? { authorization: `Bearer ${key}` } : {} })
}

async function context(libraryId: string, query: string) {
  const res = await app.inject({ url: '/api/v2/context', query: { libraryId, query, type: 'json' }, headers: { authorization: `Bearer ${key}` } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json() as { codeSnippets: Array<{ codeTitle: string; codeList: Array<{ language: string; code: string }>; codeId: string }>; infoSnippets: Array<{ content: string; pageId: string }> }
}

const confluenceBody = (siteUrl: string, extra: Record<string, unknown> = {}) => ({
  cloudId: 'ignored', siteUrl, spaceKey: 'OPS', spaceName: 'Operations', title: 'Ops handbook', description: 'How we run things', ...extra,
})

beforeAll(async () => {
  const cloud = await confluenceStandIn({ flavor: 'cloud', spaceKey: 'OPS', email: 'bot@acme.test', token: CLOUD_TOKEN, pageSize: 1, pages: [
    { id: '501', title: 'Deployments', storage: kubectlPage },
    { id: '502', title: 'Paging', parentId: '501', storage: pagerPage },
  ] }, defer)
  const dc = await confluenceStandIn({ flavor: 'datacenter', spaceKey: 'OPS', token: DC_TOKEN, pageSize: 1, pages: [
    { id: '601', title: 'Backups', storage: '<h2>Restore a backup</h2><p>Restore the nightly snapshot into a scratch database first:</p><ac:structured-macro ac:name="code"><ac:parameter ac:name="language">sql</ac:parameter><ac:plain-text-body><![CDATA[RESTORE DATABASE scratch FROM SNAPSHOT nightly;]]></ac:plain-text-body></ac:structured-macro>' },
    { id: '602', title: 'Other', storage: '<p>Other operational notes that nobody reads but everybody should know about, as always in every wiki.</p>' },
  ] }, defer)
  const notion = await notionStandIn({ token: NOTION_TOKEN, pages: [{ id: NOTION_PAGE, title: 'Feature flags', blocks: [
    textBlock('heading_1', 'Toggle a flag'),
    textBlock('paragraph', 'Flags are toggled per environment from the flags service, never by editing config files by hand.'),
    block('code', { language: 'typescript', rich_text: [rich("await flags.enable('new-checkout', { env: 'staging' })")], caption: [] }),
  ] }] }, defer)
  cloudUrl = cloud.url
  const logs = new PassThrough()
  logs.on('data', (chunk: Buffer) => void (logText += chunk.toString()))
  app = await buildTestApp({ defer, logStream: logs, log: { level: 'info' } })
  key = await createKey(app)
  const { connections } = app.runtime.store
  await connections.create(INSTALL_CONNECTIONS, { kind: 'confluence', name: 'acme-cloud', baseUrl: cloud.url, email: 'bot@acme.test', token: CLOUD_TOKEN })
  await connections.create(INSTALL_CONNECTIONS, { kind: 'confluence', name: 'acme-dc', baseUrl: dc.url, token: DC_TOKEN })
  await connections.create(INSTALL_CONNECTIONS, { kind: 'notion', name: 'acme-workspace', baseUrl: notion.url, token: NOTION_TOKEN })
})

describe('POST /v2/add/confluence', () => {
  it('indexes a Cloud space whose code snippets answer questions with their language and page link', async () => {
    const res = await post('/api/v2/add/confluence', confluenceBody(cloudUrl))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({ libraryName: '/confluence/ops-handbook', message: expect.stringContaining('/confluence/ops-handbook') })
    const version = await waitForLibrary(app, '/confluence/ops-handbook')
    expect(version.state, version.errorMessage ?? '').toBe('finalized')

    const answer = await context('/confluence/ops-handbook', 'how do I scale a deployment')
    expect(answer.codeSnippets[0]).toMatchObject({ codeList: [{ language: 'bash', code: 'kubectl scale deployment/billing --replicas=5' }] })
    expect(answer.codeSnippets[0].codeId).toBe(`${cloudUrl}/wiki/spaces/OPS/pages/501/Deployments#scale-a-deployment`)
    const escalation = await context('/confluence/ops-handbook', 'who is paged when on-call does not acknowledge')
    expect(escalation.infoSnippets[0].content).toContain('secondary is paged automatically')
  })

  it('indexes selected pages of a Data Center space', async () => {
    const dcUrl = (await app.runtime.store.connections.get(INSTALL_CONNECTIONS, 'acme-dc'))!.baseUrl
    const res = await post('/api/v2/add/confluence', confluenceBody(`${dcUrl}/`, { pageIds: ['601'], title: 'Backups' }))
    expect(res.statusCode, res.body).toBe(200)
    const version = await waitForLibrary(app, '/confluence/backups')
    expect(version.state, version.errorMessage ?? '').toBe('finalized')
    const answer = await context('/confluence/backups', 'restore a backup')
    expect(answer.codeSnippets[0].codeList[0]).toEqual({ language: 'sql', code: 'RESTORE DATABASE scratch FROM SNAPSHOT nightly;' })
    expect(JSON.stringify(answer)).not.toContain('nobody reads')
  })

  it('refuses a site without a stored connection, and requests without a key', async () => {
    const unknown = await post('/api/v2/add/confluence', confluenceBody('https://other.atlassian.net'))
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining('lectern connections add confluence') })
    expect((await post('/api/v2/add/confluence', confluenceBody(cloudUrl), false)).statusCode).toBe(401)
  })

  it('fails the job with a clear message when the site refuses the token', async () => {
    const { connections } = app.runtime.store
    await connections.create(INSTALL_CONNECTIONS, { kind: 'confluence', name: 'stale', baseUrl: `${cloudUrl}/wiki`, email: 'bot@acme.test', token: 'expired-token-value' })
    await connections.remove(INSTALL_CONNECTIONS, 'acme-cloud')
    const res = await post('/api/v2/add/confluence', confluenceBody(cloudUrl, { title: 'Stale' }))
    expect(res.statusCode, res.body).toBe(200)
    const version = await waitForLibrary(app, '/confluence/stale')
    expect(version.state).toBe('error')
    expect(version.errorMessage).toMatch(/refused the token of connection "stale" \(HTTP 401\)/)
    expect(version.errorMessage).not.toContain('expired-token-value')
  })

  it('fails the job when the site cannot be reached', async () => {
    const port = await freePort()
    await app.runtime.store.connections.create(INSTALL_CONNECTIONS, { kind: 'confluence', name: 'down', baseUrl: `http://127.0.0.1:${port}`, token: 'down-token-value' })
    const res = await post('/api/v2/add/confluence', confluenceBody(`http://127.0.0.1:${port}`, { title: 'Down' }))
    expect(res.statusCode, res.body).toBe(200)
    const version = await waitForLibrary(app, '/confluence/down')
    expect(version.state).toBe('error')
    expect(version.errorMessage).toMatch(/ECONNREFUSED/)
  })
})

describe('POST /v2/add/notion', () => {
  it('indexes pages through the connection named like the workspace', async () => {
    const res = await post('/api/v2/add/notion', { workspaceId: 'w-1', workspaceName: 'Acme Workspace', pageIds: [NOTION_PAGE], title: 'Flags guide', description: 'Feature flags' })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ libraryName: '/notion/flags-guide' })
    const version = await waitForLibrary(app, '/notion/flags-guide')
    expect(version.state, version.errorMessage ?? '').toBe('finalized')
    const answer = await context('/notion/flags-guide', 'enable a feature flag in staging')
    expect(answer.codeSnippets[0].codeList[0]).toEqual({ language: 'typescript', code: "await flags.enable('new-checkout', { env: 'staging' })" })
  })

  it('refuses malformed page IDs', async () => {
    const res = await post('/api/v2/add/notion', { workspaceId: 'w', workspaceName: 'acme-workspace', pageIds: ['not-a-page'], title: 'X', description: '' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining('page ID') })
  })
})

describe('tokens at rest and in logs', () => {
  it('never appear in the logs, job rows or the database files in plain text', async () => {
    const files = fs.readdirSync(app.runtime.store.paths.root).filter((f) => f.includes('.db') || f.includes('sqlite'))
    expect(files.length).toBeGreaterThan(0)
    const bytes = files.map((f) => fs.readFileSync(`${app.runtime.store.paths.root}/${f}`).toString('latin1')).join('')
    const jobs = JSON.stringify(sqliteOf(app.runtime.store).prepare('SELECT * FROM jobs').all())
    expect(logText.length).toBeGreaterThan(0)
    for (const token of [...TOKENS, 'expired-token-value', 'down-token-value']) {
      expect(bytes).not.toContain(token)
      expect(logText).not.toContain(token)
      expect(jobs).not.toContain(token)
    }
  })
})
