/**
 * The Notion reader against a loopback STAND-IN of the Notion API (pages.retrieve and
 * blocks.children.list with has_more/next_cursor): Notion cannot run here. Checks auth, paging,
 * nesting, child pages and the Markdown each block type becomes.
 */
import { describe, expect, it } from 'vitest'
import { readNotion } from '../../src/sources/notion.js'
import { HttpClient } from '../../src/sources/http.js'
import type { SourceContext } from '../../src/sources/types.js'
import { openStore, type Store } from '../../src/store/index.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { block, notionStandIn, rich, textBlock, type NotionPageFixture } from '../helpers/workspace-standins.js'
import { testParse } from '../helpers/parse.js'

const TOKEN = 'secret_notion_5d1b8e'
const ROOT = '1f2e3d4c-5b6a-4798-8a1f-2e3d4c5b6a79'
const CHILD = '2a2e3d4c-5b6a-4798-8a1f-2e3d4c5b6a79'

function fixture(): NotionPageFixture[] {
  return [
    {
      id: ROOT,
      title: 'Runbooks',
      blocks: [
        textBlock('heading_1', 'Restarting the queue'),
        block('paragraph', { rich_text: [rich('Use '), rich('queuectl', { code: true }), rich(' as the '), rich('ops', { bold: true }), rich(' user; see '), rich('the wiki', {}, 'https://wiki.acme.test')] }),
        block('code', { language: 'shell', rich_text: [rich('queuectl restart --graceful')], caption: [] }),
        textBlock('numbered_list_item', 'Drain the workers'),
        textBlock('numbered_list_item', 'Restart the broker', [textBlock('bulleted_list_item', 'wait for green')]),
        block('to_do', { rich_text: [rich('Announce in #ops')], checked: true }),
        block('callout', { rich_text: [rich('Never restart during a deploy.')], icon: { type: 'emoji', emoji: '⚠️' } }),
        textBlock('quote', 'Slow is smooth.'),
        textBlock('toggle', 'Why graceful?', [textBlock('paragraph', 'Graceful restarts let in-flight jobs finish.')]),
        block('table', { table_width: 2, has_column_header: true, has_row_header: false }, [
          block('table_row', { cells: [[rich('Flag')], [rich('Meaning')]] }),
          block('table_row', { cells: [[rich('--graceful')], [rich('wait for jobs')]] }),
        ]),
        block('code', { language: 'plain text', rich_text: [rich('no language here')], caption: [] }),
        block('child_page', { title: 'Database failover', id: CHILD }),
      ],
    },
    {
      id: CHILD,
      title: 'Database failover',
      blocks: [block('code', { language: 'python', rich_text: [rich('db.promote(replica="b")')], caption: [] })],
    },
  ]
}

async function storeWith(baseUrl: string): Promise<Store> {
  const store = await openStore(await tmpDataDir())
  await store.connections.create(INSTALL_CONNECTIONS, { kind: 'notion', name: 'ws', baseUrl, token: TOKEN })
  return store
}

function context(store: Store, logs: string[] = []): SourceContext {
  return { http: new HttpClient({ retries: 0 }), store, signal: new AbortController().signal, parse: testParse(), progress: () => {}, log: (m) => void logs.push(m), previousRevision: null, libraryId: '/test/library', tag: '', workDir: '', connections: INSTALL_CONNECTIONS, chromiumPath: '' }
}

describe('Notion (stand-in)', () => {
  it('reads every block across cursor pages and renders Markdown, code keeping its language', async () => {
    const server = await notionStandIn({ token: TOKEN, pages: fixture(), pageSize: 3 })
    const store = await storeWith(server.url)
    const fetched = await readNotion({ type: 'notion', connection: 'ws', pageIds: [ROOT] }, context(store))
    await store.close()

    expect(fetched.documents.map((d) => d.path)).toEqual([`${ROOT.replace(/-/g, '')}-runbooks.md`, `${CHILD.replace(/-/g, '')}-database-failover.md`])
    expect(fetched.documents[0].text).toBe(`# Runbooks

## Restarting the queue

Use \`queuectl\` as the **ops** user; see [the wiki](https://wiki.acme.test)

\`\`\`shell
queuectl restart --graceful
\`\`\`

1. Drain the workers
2. Restart the broker
   - wait for green

- [x] Announce in #ops

> ⚠️ Never restart during a deploy.

> Slow is smooth.

**Why graceful?**

Graceful restarts let in-flight jobs finish.

| Flag | Meaning |
| --- | --- |
| --graceful | wait for jobs |

\`\`\`
no language here
\`\`\`

[Database failover](https://www.notion.so/${CHILD.replace(/-/g, '')})
`)
    expect(fetched.documents[1].text).toContain('```python\ndb.promote(replica="b")\n```')
    expect(fetched.title).toBe('Runbooks')
    expect(fetched.locate(fetched.documents[0].path, 'x')).toMatch(/^https:\/\/www\.notion\.so\/Runbooks-/)

    const listCalls = server.requests.filter((r) => r.path.startsWith(`/v1/blocks/${ROOT}/children`))
    expect(listCalls.length).toBe(4)
    expect(server.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true)
  })

  it('fails with a clear message, without the token, when the API answers 401', async () => {
    const server = await notionStandIn({ token: 'another', pages: fixture() })
    const store = await storeWith(server.url)
    const logs: string[] = []
    const error = await readNotion({ type: 'notion', connection: 'ws', pageIds: [ROOT] }, context(store, logs)).catch((e: Error) => e)
    await store.close()
    expect(error).toMatchObject({ code: 'source_unreachable', message: expect.stringContaining('refused the token of connection "ws" (HTTP 401)') })
    expect(`${(error as Error).message}${logs.join('\n')}`).not.toContain(TOKEN)
  })

  it('names a page that is missing or not shared', async () => {
    const server = await notionStandIn({ token: TOKEN, pages: fixture() })
    const store = await storeWith(server.url)
    const missing = '9f2e3d4c-5b6a-4798-8a1f-2e3d4c5b6a79'
    const error = await readNotion({ type: 'notion', connection: 'ws', pageIds: [missing] }, context(store)).catch((e: Error) => e)
    await store.close()
    expect((error as Error).message).toContain(`Notion page ${missing} was not found, or is not shared`)
  })
})
