/**
 * The engine at start: the libraries asked most in the last 30 days (the usage table) are loaded
 * before their first request, within the cache bound (`search.cacheSize`, `--cache-size`).
 */
import { rmSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../../server/app.js'
import { ANONYMOUS } from '../../src/library/access.js'
import { engineFilePath } from '../../src/install/paths.js'
import { Retriever } from '../../src/search/context.js'
import { seedLibrary } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { tmpDataDir, tmpDir } from '../helpers/tmp.js'

const DOCS = (topic: string) => ({ 'docs/guide.md': `# ${topic}\n\n## Use ${topic}\n\nCall \`${topic}()\` to start.\n\n\`\`\`js\n${topic}({ fast: true })\n\`\`\`\n` })

describe('loading libraries at start', () => {
  it('loads the most-asked libraries, and only those, before their first request', async () => {
    const dataDir = await tmpDataDir()
    const firstLines: string[] = []
    const first = await buildApp({ dataDir, logStream: { write: (line: string) => void firstLines.push(line) } })
    // A new install has nothing to load ahead, and says so rather than "0 of the 0".
    const none = await pollUntil('the start-up load to be logged', () => firstLines.map((line) => JSON.parse(line) as { msg: string }).find((line) => line.msg.includes('asked in the last')))
    expect(none.msg).toMatch(/^no library was asked in the last 30 days, so none is loaded ahead; up to \d+ MB/)
    const asked = await seedLibrary(first, '/acme/asked', DOCS('asked'))
    await seedLibrary(first, '/acme/never', DOCS('never'))
    for (let i = 0; i < 3; i++) {
      const res = await first.inject({ url: '/api/v2/context?libraryId=/acme/asked&query=start' })
      expect(res.statusCode).toBe(200)
    }
    await first.close()

    const lines: string[] = []
    const second = await buildApp({ dataDir, logStream: { write: (line: string) => void lines.push(line) } })
    try {
      expect(await second.runtime.usage.mostAskedSets(30)).toEqual([asked.setPk])
      const stats = await pollUntil('the asked library to be loaded', () => {
        const now = second.runtime.retriever.cacheStats()
        return now.sets > 0 ? now : undefined
      })
      expect(stats.sets).toBe(1)
      expect(stats.bytes).toBeGreaterThan(0)
      const said = await pollUntil('the start-up load to be logged', () => lines.map((line) => JSON.parse(line) as { msg: string; loaded?: number; asked?: number }).find((line) => line.msg.startsWith('loaded ')))
      expect(said).toMatchObject({ loaded: 1, asked: 1 })
      expect(said.msg).toMatch(/^loaded 1 of the 1 library asked in the last 30 days, most asked first; up to \d+ MB/)
    } finally {
      await second.close()
    }
  })

  it('stops loading at the bound without dropping the most-asked libraries it loaded first', async () => {
    const dataDir = await tmpDataDir()
    const app = await buildApp({ dataDir })
    try {
      const sets = []
      for (const topic of ['alpha', 'beta', 'gamma']) sets.push((await seedLibrary(app, `/acme/${topic}`, DOCS(topic))).setPk)
      const one = new Retriever(app.runtime.store, app.runtime.embedders, undefined, 'fused', 2 ** 30)
      await one.warm([sets[0]])
      const setBytes = one.cacheStats().bytes
      // Room for two of the three sets: the third asked is not loaded, the first two stay.
      const retriever = new Retriever(app.runtime.store, app.runtime.embedders, undefined, 'fused', Math.floor(setBytes * 2.5))
      expect(await retriever.warm(sets)).toBe(2)
      expect(retriever.cacheStats().sets).toBe(2)
      const ask = (topic: string) => retriever.getContext({ libraryId: `/acme/${topic}`, query: 'start', tokens: 5000, caller: ANONYMOUS })
      await ask('alpha')
      await ask('beta')
      expect(retriever.cacheStats().sets).toBe(2)
    } finally {
      await app.close()
    }
  })

  it('says a set rebuilt at start was rebuilt before its first request', async () => {
    const dataDir = await tmpDataDir()
    const app = await buildApp({ dataDir })
    try {
      const { setPk } = await seedLibrary(app, '/acme/alpha', DOCS('alpha'))
      rmSync(engineFilePath(app.runtime.store.paths, setPk))
      const logged: string[] = []
      const log = { info: (_obj: object, msg: string) => logged.push(msg), warn: (_obj: object, msg: string) => logged.push(msg) }
      const retriever = new Retriever(app.runtime.store, app.runtime.embedders, log, 'fused', 2 ** 30)
      expect(await retriever.warm([setPk])).toBe(1)
      expect(logged).toEqual([expect.stringMatching(new RegExp(`^rebuilt the engine data of snippet set ${setPk} \\(\\d+ snippets\\) from its rows in \\d+ ms, before its first request$`))])
    } finally {
      await app.close()
    }
  })

  it('drops a loaded set once another process removed its library', async () => {
    const dataDir = await tmpDataDir()
    const app = await buildApp({ dataDir })
    try {
      await seedLibrary(app, '/acme/kept', DOCS('kept'))
      await seedLibrary(app, '/acme/gone', DOCS('gone'))
      for (const id of ['/acme/kept', '/acme/gone']) expect((await app.inject({ url: `/api/v2/context?libraryId=${id}&query=start` })).statusCode).toBe(200)
      expect(app.runtime.retriever.cacheStats().sets).toBe(2)
      const removed = await runCli(['libraries', 'remove', '/acme/gone', '--yes', '--data-dir', dataDir])
      expect(removed.exitCode, removed.stderr).toBe(0)
      expect((await app.inject({ url: '/api/v2/context?libraryId=/acme/gone&query=start' })).statusCode).toBe(404)
      await pollUntil('the removed library\'s set to be dropped', async () => {
        expect((await app.inject({ url: '/api/v2/context?libraryId=/acme/kept&query=start' })).statusCode).toBe(200)
        return app.runtime.retriever.cacheStats().sets === 1 ? true : undefined
      })
    } finally {
      await app.close()
    }
  })

  it('takes the cache bound as a share of RAM or a size, and refuses anything else', async () => {
    const dataDir = await tmpDataDir()
    const app = await buildApp({ dataDir })
    await app.close()
    const shown = await runCli(['config', 'get', 'search.cacheSize', '--data-dir', dataDir, '--json'], { LECTERN_CACHE_SIZE: '2GB' })
    expect(shown.exitCode).toBe(0)
    // Scripts get bytes; people get the setting as it was written, a share of RAM or a size.
    expect(JSON.parse(shown.stdout)).toEqual([{ name: 'search.cacheSize', value: 2 * 2 ** 30, source: 'env LECTERN_CACHE_SIZE', description: expect.any(String) }])
    const asWritten = await runCli(['config', 'get', 'search.cacheSize', '--data-dir', dataDir], { LECTERN_CACHE_SIZE: '2GB' })
    expect(asWritten.stdout).toBe('2GB')
    expect((await runCli(['config', 'get', 'search.cacheSize', '--data-dir', dataDir])).stdout).toBe('25%')
    const file = path.join(await tmpDir(), 'lectern.yaml')
    await writeFile(file, 'search:\n  cacheSize: 512MB\n')
    const table = await runCli(['config', 'get', '--config', file, '--data-dir', dataDir])
    expect(table.stdout.split('\n').find((line) => line.startsWith('search.cacheSize'))?.split(/\s{2,}/)).toEqual(['search.cacheSize', '512MB', `file ${file}`])
    for (const bad of ['lots', '0.5KB', '150%', '-1GB', '99999TB']) {
      const refused = await runCli(['serve', '--cache-size', bad, '--data-dir', dataDir, '--port', '0'])
      expect(refused.exitCode, bad).toBe(2)
      // The refusal repeats the value, so a typo in a long command line is found at once.
      expect(refused.stderr.replace(/\s+/g, ' ')).toContain(`Invalid setting search.cacheSize (from --cache-size): expected`)
      expect(refused.stderr.replace(/\s+/g, ' ')).toContain(`not "${bad}".`)
    }
    // Nine runs of the real binary, a few seconds each on a busy machine.
  }, 90_000)
})
