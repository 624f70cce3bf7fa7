/**
 * Switching the embedding provider to Ollama (a loopback stand-in speaking /api/embed): the
 * switch is probed, every set is re-embedded in the background and switched when complete;
 * a provider failing half-way leaves the old index serving and the job failed with a reason;
 * resuming continues from the last saved batch instead of starting over.
 */
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { PROBE_TEXT } from '../../src/embed/remote.js'
import { vectorIndexPath } from '../../src/install/paths.js'
import { inspectVectorFile } from '../../src/index/vector-index.js'
import { buildTestApp } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { sessionCookie } from '../backup/helpers.js'
import { contextOf, seedDocs } from './helpers.js'
import { ollamaStandIn } from './ollama-standin.js'

const QUESTION = 'how to render tables'
/** Snippet texts sent: not the probes, not the questions of searches made meanwhile. */
const texts = (calls: string[][]) => calls.flat().filter((t) => t !== PROBE_TEXT && t !== QUESTION).length

describe('re-embedding with a local provider', () => {
  it('switches every set to Ollama, survives a failure half-way, and resumes where it stopped', async () => {
    const standIn = await ollamaStandIn(16)
    const dataDir = await tmpDataDir()
    const app = await buildTestApp({ dataDir })
    try {
      await seedDocs(app, '/acme/widgets', 150)
      await seedDocs(app, '/acme/gadgets', 6)
      const { store } = app.runtime
      const setOf = async (id: string) => (await store.snippets.set((await store.libraries.version((await store.libraries.byId(id))!.pk, ''))!.currentSet!))!
      const widgets = await setOf('/acme/widgets')
      const total = await store.snippets.count(widgets.pk)
      expect(total).toBeGreaterThan(128)
      const before = await contextOf(app, '/acme/widgets', QUESTION)

      // A wrong model is refused by the probe, with nothing changed.
      standIn.fail = () => true
      const admin = await sessionCookie(app, 'admin')
      const refused = await app.inject({ method: 'PUT', url: '/api/settings/embedding', headers: { cookie: admin }, payload: { provider: 'ollama', model: 'nomic-embed-text', host: standIn.url } })
      expect(refused.statusCode).toBe(400)
      expect(refused.json()).toMatchObject({ error: 'validation_error', message: expect.stringMatching(/^Not switched: .*(failed its probe|simulated outage|Ollama)/) })
      expect((await app.inject({ url: '/api/settings/embedding', headers: { cookie: admin } })).json()).toMatchObject({ provider: 'hash' })

      // The provider answers the probes and two batches, then fails.
      const firstCall = standIn.calls.length
      standIn.fail = (call) => call >= firstCall + 4
      const switched = await app.inject({ method: 'PUT', url: '/api/settings/embedding', headers: { cookie: admin }, payload: { provider: 'ollama', model: 'nomic-embed-text', host: standIn.url } })
      expect(switched.statusCode, switched.body).toBe(200)
      expect(switched.json()).toMatchObject({ provider: 'ollama', model: 'nomic-embed-text', dimensions: 16, queuedSets: 2 })
      const failed = await pollUntil('both re-embed jobs to fail', async () => {
        const jobs = (await store.jobs.list({ states: ['failed'] })).filter((j) => j.kind === 'reembed')
        return jobs.length === 2 ? jobs : undefined
      })
      expect(failed[0].errorMessage).toMatch(/Ollama|500|outage/)
      // Still the old index, still answering the same.
      expect(await setOf('/acme/widgets')).toMatchObject({ embedProvider: 'hash', dimensions: widgets.dimensions })
      expect(await contextOf(app, '/acme/widgets', QUESTION)).toEqual(before)
      // Hash-embedded: its engine file holds its vectors, and no vector index was left half-written.
      expect(fs.readdirSync(store.paths.vectors).filter((f) => !/\.reembed\./.test(f))).toEqual([])

      // Healed; resume from the shell while the server's worker runs the jobs.
      standIn.fail = () => false
      const resumeFrom = standIn.calls.length
      const resumed = await runCli(['config', 'reembed', '--resume'], { LECTERN_DATA_DIR: dataDir })
      expect(resumed.stdout).toMatch(/Queued re-embedding of 2 snippet sets/)
      const done = await pollUntil('the resumed jobs to succeed', async () => {
        // Search keeps answering while sets switch.
        await contextOf(app, '/acme/widgets', QUESTION)
        const jobs = (await store.jobs.list({ states: ['succeeded'] })).filter((j) => j.kind === 'reembed')
        return jobs.length === 2 ? jobs : undefined
      }, 30_000)
      const widgetsJob = done.find((j) => j.payload.setPk === widgets.pk)!
      expect(widgetsJob.statusMessage).toMatch(/\(resumed at 128\)/)
      // Only the snippets not embedded before the failure were sent again.
      const gadgetsCount = await store.snippets.count((await setOf('/acme/gadgets')).pk)
      expect(texts(standIn.calls.slice(resumeFrom))).toBe(total - 128 + gadgetsCount)

      const after = await setOf('/acme/widgets')
      expect(after).toMatchObject({ pk: widgets.pk, embedProvider: 'ollama', embedModel: 'nomic-embed-text', dimensions: 16 })
      expect(inspectVectorFile(vectorIndexPath(store.paths, after.pk), { dimensions: 16, count: total })).toBeUndefined()
      expect(fs.readdirSync(store.paths.vectors).filter((f) => /reembed|\.next/.test(f))).toEqual([])
      const answer = (await contextOf(app, '/acme/widgets', QUESTION)) as { code: unknown[]; info: unknown[] }
      expect(answer.code.length + answer.info.length).toBeGreaterThan(0)
      const queriesBefore = standIn.calls.length
      await contextOf(app, '/acme/gadgets', 'install')
      // The question itself is now embedded by Ollama, the set's model.
      expect(standIn.calls.length).toBe(queriesBefore + 1)
    } finally {
      await standIn.close()
    }
  }, 90_000)

  it('switches from the shell with `config set embedding.provider ollama --model --host`, queuing the re-embedding', async () => {
    const standIn = await ollamaStandIn(8)
    const dataDir = await tmpDataDir()
    const app = await buildTestApp({ dataDir, startWorker: false })
    try {
      await seedDocs(app, '/acme/widgets', 3)
      const result = await runCli(['config', 'set', 'embedding.provider', 'ollama', '--model', 'nomic-embed-text', '--host', standIn.url, '--json'], { LECTERN_DATA_DIR: dataDir })
      expect(result.exitCode, result.stderr).toBe(0)
      expect(JSON.parse(result.stdout)).toMatchObject({ name: 'embedding', value: { provider: 'ollama', model: 'nomic-embed-text', dimensions: 8, queuedSets: 1 } })
      expect((await app.runtime.store.jobs.list({ states: ['queued'] })).map((j) => j.kind)).toEqual(['reembed'])
      expect(standIn.calls.flat()).toContain(PROBE_TEXT)
    } finally {
      await standIn.close()
    }
  }, 60_000)
})
