/**
 * The stock Context7 clients, unchanged, pointed at Lectern: `@upstash/context7-mcp` over stdio
 * with CONTEXT7_API_URL, and the `ctx7` CLI with --base-url. Both are devDependencies.
 */
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { execa } from 'execa'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { renameLibrary } from '../../src/library/admin.js'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

const DOCS = {
  'docs/quickstart.md': `# Quickstart

## Create a gizmo

Gizmos are created with createGizmo, which takes a name and returns a ready gizmo instance.

\`\`\`ts
const gizmo = createGizmo({ name: 'spinner' })
\`\`\`
`,
}

/** The environment of a stock client: no proxy (it would route loopback through it), no telemetry. */
function clientEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', OTEL_SDK_DISABLED: 'true', CTX7_TELEMETRY_DISABLED: '1', NO_COLOR: '1', ...extra }
  return env
}

describe('stock Context7 clients against Lectern', () => {
  const defer = suiteTeardown()
  let app: FastifyInstance
  let base: string
  let home: string

  beforeAll(async () => {
    app = await buildTestApp({ defer })
    await seedLibrary(app, '/acme/gizmos', DOCS)
    await seedLibrary(app, '/acme/old-gizmos', DOCS)
    await renameLibrary(app.runtime.store, '/acme/old-gizmos', '/acme/gizmos-next')
    base = await app.listen({ port: 0, host: '127.0.0.1' })
    home = await tmpDir('lectern-home-', defer)
  })

  it('@upstash/context7-mcp resolves the library and queries its docs', async () => {
    const client = new Client({ name: 'lectern-test', version: '1.0.0' })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(PROJECT_ROOT, 'node_modules/@upstash/context7-mcp/dist/index.js')],
        env: clientEnv({ CONTEXT7_API_URL: `${base}/api`, HOME: home }),
        stderr: 'pipe',
      }),
    )
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['resolve-library-id', 'query-docs']))
      const resolved = (await client.callTool({ name: 'resolve-library-id', arguments: { libraryName: 'gizmos', query: 'create a gizmo' } })) as {
        content: Array<{ text: string }>
      }
      expect(resolved.content[0].text).toContain('/acme/gizmos')
      const docs = (await client.callTool({ name: 'query-docs', arguments: { libraryId: '/acme/gizmos', query: 'how do I create a gizmo' } })) as {
        content: Array<{ text: string }>
      }
      expect(docs.content[0].text).toContain("createGizmo({ name: 'spinner' })")
    } finally {
      await client.close()
    }
    const usage = await app.runtime.usage.forLibrary((await app.runtime.store.libraries.byId('/acme/gizmos'))!.pk)
    expect(usage.find((r) => r.client === 'mcp-server' && r.transport === 'rest-txt')?.requests).toBeGreaterThanOrEqual(1)
  })

  const ctx7 = (args: string[]) =>
    execa(process.execPath, [path.join(PROJECT_ROOT, 'node_modules/ctx7/dist/index.js'), '--base-url', base, ...args], {
      env: clientEnv({ HOME: home }),
      extendEnv: false,
      reject: false,
      timeout: 30_000,
    })

  it('ctx7 library finds the library as JSON', async () => {
    const result = await ctx7(['library', 'gizmos', 'create a gizmo', '--json'])
    expect(result.exitCode).toBe(0)
    const parsed = JSON.parse(result.stdout) as Array<{ id: string }> | { results: Array<{ id: string }> }
    const ids = (Array.isArray(parsed) ? parsed : parsed.results).map((r) => r.id)
    expect(ids[0]).toBe('/acme/gizmos')
  })

  it('ctx7 docs prints the snippets', async () => {
    const result = await ctx7(['docs', '/acme/gizmos', 'how do I create a gizmo'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toContain('createGizmo')
  })

  it('ctx7 docs on a renamed library prints its new ID', async () => {
    const result = await ctx7(['docs', '/acme/old-gizmos', 'create a gizmo'])
    expect(`${result.stdout}\n${result.stderr}`).toContain('/acme/gizmos-next')
  })
})
