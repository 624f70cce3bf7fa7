/**
 * A server and CLI commands share one data directory: `lectern libraries remove` and `lectern add`
 * change it while the server keeps caches keyed by snippet-set pk (vector indexes). The server
 * must then answer exactly as a freshly started one would.
 */
import { describe, expect, it } from 'vitest'
import { LOCAL } from '../../src/library/access.js'
import { removeLibrary } from '../../src/library/admin.js'
import { openRuntime } from '../../src/runtime.js'
import { resolveConfig } from '../../src/config.js'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { tmpDataDir } from '../helpers/tmp.js'

/** Twenty sections whose words overlap, so the vector ranking decides the order. */
function pages(topic: string): Record<string, string> {
  const sections = Array.from({ length: 20 }, (_, i) => `## ${topic} step ${i}\n\nRun step ${i} of the ${topic} setup.\n\n\`\`\`bash\n${topic}-cli step-${i} --level ${i * 7}\n\`\`\`\n`)
  return { [`docs/${topic}.md`]: `# ${topic}\n\n${sections.join('\n')}` }
}

describe('a data dir changed by another process', () => {
  it('a removed and re-added library is answered like a fresh server answers it', async () => {
    const dataDir = await tmpDataDir()
    const server = await buildTestApp({ dataDir, startWorker: false })
    const ask = (app: typeof server, libraryId: string) =>
      app.inject({ url: '/api/v2/context', query: { libraryId, query: 'level', type: 'json', tokens: '50000' } })

    const { setPk: removedSet } = await seedLibrary(server, '/acme/alpha', pages('alpha'))
    expect((await ask(server, '/acme/alpha')).statusCode).toBe(200)

    // What `lectern libraries remove` and `lectern add` do from their own process.
    const cli = await openRuntime({ config: resolveConfig({ dataDir: dataDir }).config })
    await removeLibrary(cli.store, '/acme/alpha', LOCAL)
    await cli.close()
    const { setPk: newSet } = await seedLibrary(await buildTestApp({ dataDir, startWorker: false }), '/acme/beta', pages('beta'))
    // A set pk is reused once the newest set is deleted (INTEGER PRIMARY KEY without AUTOINCREMENT),
    // so the server's cached vector index of /acme/alpha now answers for /acme/beta.
    expect.soft(newSet, 'snippet set pks must never be reused').not.toBe(removedSet)

    const fresh = await buildTestApp({ dataDir, startWorker: false })
    expect((await ask(server, '/acme/beta')).json()).toEqual((await ask(fresh, '/acme/beta')).json())
  })
})
