/**
 * The Confluence reader against loopback STAND-INS of Confluence Cloud (REST v2) and Data Center
 * (REST content API): Confluence cannot run here, so the stand-ins speak the documented subset
 * with paging. Checks auth, paging, storage-format conversion and page selection.
 */
import { describe, expect, it } from 'vitest'
import { readConfluence } from '../../src/sources/confluence.js'
import { storageToMarkdown } from '../../src/sources/confluence-storage.js'
import { HttpClient } from '../../src/sources/http.js'
import type { SourceContext } from '../../src/sources/types.js'
import { openStore, type Store } from '../../src/store/index.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { confluenceStandIn, type ConfluencePageFixture } from '../helpers/workspace-standins.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'
import { snippetsOf } from '../../src/jobs/ingest.js'
import { testParse } from '../helpers/parse.js'

const TOKEN = 'atl-secret-token-7f3a9c'
const EMAIL = 'docs-bot@acme.test'

const CODE_PAGE = `<p>Install the client first.</p>
<ac:structured-macro ac:name="code" ac:schema-version="1" ac:macro-id="a1"><ac:parameter ac:name="language">python</ac:parameter><ac:parameter ac:name="title">client.py</ac:parameter><ac:plain-text-body><![CDATA[from acme import Client
if limit < 10 and retries > 2:
    Client(token="x").connect()]]></ac:plain-text-body></ac:structured-macro>
<ac:structured-macro ac:name="warning"><ac:rich-text-body><p>Never commit the token.</p></ac:rich-text-body></ac:structured-macro>
<ac:structured-macro ac:name="toc" />
<h2>Retries</h2><p>Set <code>retries</code> to retry on 503.</p>`

function pages(): ConfluencePageFixture[] {
  return [
    { id: '1001', title: 'Guides', storage: '<p>All guides for the Acme platform live under this page: clients, deployment, operations and the glossary of terms.</p>', version: 3 },
    { id: '1002', title: 'Python client', parentId: '1001', storage: CODE_PAGE, version: 7 },
    { id: '1003', title: 'Deploying', parentId: '1001', storage: '<h2>Blue-green</h2><p>Deploy the new release next to the old one, then switch the router once the health checks of every pod pass.</p>' },
    { id: '1004', title: 'Rollback', parentId: '1003', storage: '<p>Run the rollback pipeline to restore the previous release; it switches the router back and keeps the failed pods for inspection.</p>' },
    { id: '1005', title: 'Glossary', storage: '<table><tbody><tr><th>Term</th><th>Meaning</th></tr><tr><td>Pod</td><td>A unit</td></tr></tbody></table>' },
  ]
}

async function storeWith(baseUrl: string, email?: string): Promise<Store> {
  const store = await openStore(await tmpDataDir())
  await store.connections.create(INSTALL_CONNECTIONS, { kind: 'confluence', name: 'acme', baseUrl, email, token: TOKEN })
  return store
}

function context(store: Store, logs: string[] = []): SourceContext {
  return {
    http: new HttpClient({ retries: 0 }),
    store,
    signal: new AbortController().signal,
    parse: testParse(),
    progress: () => {},
    log: (m) => void logs.push(m),
    previousRevision: null,
    libraryId: '/test/library',
    tag: '',
    workDir: '',
    connections: INSTALL_CONNECTIONS,
    // Confluence pages come from its API; no browser renders them.
    chromiumPath: '',
  }
}

describe('storage format to Markdown', () => {
  it('turns code macros into fenced blocks with their language, panels into prose, and drops toc', () => {
    const md = storageToMarkdown(CODE_PAGE)
    expect(md).toContain('```python\nfrom acme import Client\nif limit < 10 and retries > 2:\n    Client(token="x").connect()\n```')
    expect(md).toContain('**Warning:**\n\nNever commit the token.')
    expect(md).not.toMatch(/toc|ac:|ac-/)
    expect(md).toContain('## Retries')
  })

  it('keeps task lists as GFM task items and page links as their titles', () => {
    const md = storageToMarkdown('<ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>complete</ac:task-status><ac:task-body>Rotate keys</ac:task-body></ac:task><ac:task><ac:task-id>2</ac:task-id><ac:task-status>incomplete</ac:task-status><ac:task-body>Audit</ac:task-body></ac:task></ac:task-list><p>See <ac:link><ri:page ri:content-title="Key policy" /></ac:link>.</p>')
    expect(md).toMatch(/^-\s+\[x\] Rotate keys\n-\s+\[ \] Audit\n\nSee Key policy\.$/)
  })

  it('keeps tables as GFM tables', () => {
    expect(storageToMarkdown(pages()[4].storage)).toBe('| Term | Meaning |\n| --- | --- |\n| Pod | A unit |')
  })
})

describe.each(['cloud', 'datacenter'] as const)('Confluence %s (stand-in)', (flavor) => {
  const email = flavor === 'cloud' ? EMAIL : undefined

  it('reads every page of the space across paging, with auth, code languages and ancestors', async () => {
    const server = await confluenceStandIn({ flavor, spaceKey: 'DOCS', pages: pages(), token: TOKEN, email, pageSize: 2 })
    const store = await storeWith(server.url, email)
    const fetched = await readConfluence({ type: 'confluence', connection: 'acme', spaceKey: 'DOCS' }, context(store))
    await store.close()

    const paths = fetched.documents.map((d) => d.path).sort()
    expect(paths).toEqual(['1001-guides.md', '1002-python-client.md', '1003-deploying.md', '1004-rollback.md', '1005-glossary.md'])
    const snippets = snippetsOf(fetched.documents, (path, anchor) => `${path}#${anchor}`)
    const code = snippets.find((s) => s.kind === 'code')!
    expect(code).toMatchObject({ kind: 'code', language: 'python', pageTitle: 'Python client' })
    const rollback = snippets.find((s) => s.source.startsWith('1004-rollback.md'))!
    expect(rollback.breadcrumb).toMatch(/^Guides > Deploying > Rollback/)
    expect(fetched.locate('1003-deploying.md', 'blue-green')).toMatch(new RegExp(`^${server.url}.*1003.*#blue-green$`))
    expect(fetched.revision).toMatch(/^[0-9a-f]{32}$/)

    const apiCalls = server.requests.filter((r) => r.path.includes(flavor === 'cloud' ? '/pages' : '/rest/api/content'))
    expect(apiCalls.length).toBe(3)
    const expected = flavor === 'cloud' ? `Basic ${Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64')}` : `Bearer ${TOKEN}`
    expect(server.requests.every((r) => r.authorization === expected)).toBe(true)
  })

  it('reads only the listed pages when pageIds are given', async () => {
    const server = await confluenceStandIn({ flavor, spaceKey: 'DOCS', pages: pages(), token: TOKEN, email })
    const store = await storeWith(server.url, email)
    const fetched = await readConfluence({ type: 'confluence', connection: 'acme', spaceKey: 'DOCS', pageIds: ['1002', '1004'] }, context(store))
    await store.close()
    expect(fetched.documents.map((d) => d.path).sort()).toEqual(['1002-python-client.md', '1004-rollback.md'])
  })

  it('skips a page its storage format cannot be read from (nested past the stack), with the reason, and reads the others', async () => {
    const hostile = { id: '1006', title: 'Nested', storage: '<div>'.repeat(30_000) + 'deep' + '</div>'.repeat(30_000) }
    const server = await confluenceStandIn({ flavor, spaceKey: 'DOCS', pages: [...pages(), hostile], token: TOKEN, email })
    const store = await storeWith(server.url, email)
    const logs: string[] = []
    const fetched = await readConfluence({ type: 'confluence', connection: 'acme', spaceKey: 'DOCS' }, context(store, logs))
    await store.close()
    expect(fetched.documents.map((d) => d.path)).toHaveLength(5)
    expect(fetched.documents.map((d) => d.path)).not.toContain('1006-nested.md')
    // The stack overflows after a few seconds; on a machine busy enough, the 20 s budget ends it first.
    expect(logs).toContainEqual(expect.stringMatching(/^skipped .*1006.*: it (failed to parse: Maximum call stack size exceeded|took over the 20 s parse budget)$/))
  })

  it('fails with a clear message, without the token, when the server answers 401', async () => {
    const server = await confluenceStandIn({ flavor, spaceKey: 'DOCS', pages: pages(), token: 'another-token', email })
    const store = await storeWith(server.url, email)
    const logs: string[] = []
    const error = await readConfluence({ type: 'confluence', connection: 'acme', spaceKey: 'DOCS' }, context(store, logs)).catch((e: Error) => e)
    await store.close()
    expect(error).toMatchObject({ code: 'source_unreachable', message: expect.stringMatching(/refused the token of connection "acme" \(HTTP 401\)/) })
    expect(`${(error as Error).message}${logs.join('\n')}`).not.toContain(TOKEN)
  })
})

it('reports the revision unchanged when no page changed', async () => {
  const server = await confluenceStandIn({ flavor: 'datacenter', spaceKey: 'DOCS', pages: pages(), token: TOKEN })
  const store = await storeWith(server.url)
  const first = await readConfluence({ type: 'confluence', connection: 'acme', spaceKey: 'DOCS' }, context(store))
  const again = await readConfluence({ type: 'confluence', connection: 'acme', spaceKey: 'DOCS' }, { ...context(store), previousRevision: first.revision! })
  await store.close()
  expect(again).toMatchObject({ unchanged: true, revision: first.revision })
})
