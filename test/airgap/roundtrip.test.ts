/**
 * The airgap round trip: a cloud-mode server holds libraries and issues an offline license;
 * the export endpoint and `lectern export` produce the payload and the bundle; an on-premise
 * server holding that license imports both, re-embeds them, and answers the same questions
 * with the same snippets. Force overwrites; refresh is refused for imported libraries.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import { issueLicense } from '../../src/license/issue.js'
import { publicKeyPem, signingKey } from '../../src/license/keys.js'
import { installLicense } from '../../src/license/state.js'
import { buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { freePort } from '../helpers/server.js'
import { setProcessEnv, suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { contextOf, importJson, importZip, seedDocs } from './helpers.js'

const QUESTIONS = ['how to render tables', 'configure themes', 'scaffold a project with init', 'keyboard input options']

describe('airgap round trip', () => {
  const defer = suiteTeardown()
  let cloud: FastifyInstance
  let onprem: FastifyInstance
  let cloudDir: string
  let work: string
  let licenseKey: string
  let apiKey: string
  let exported: { libraries: Array<Record<string, unknown> & { project: string; codeSnippets: unknown[]; infoSnippets: unknown[] }> }

  beforeAll(async () => {
    cloudDir = await tmpDataDir(defer)
    work = await tmpDir('lectern-airgap-', defer)
    cloud = await buildTestApp({ dataDir: cloudDir, mode: 'cloud', startWorker: false, defer })
    await seedDocs(cloud, '/acme/widgets')
    await seedDocs(cloud, '/acme/gadgets', 8)
    const issued = await issueLicense(cloud.runtime.store, { customer: 'Acme Corp', offline: true, expires: '2099-12-31' })
    licenseKey = issued.licenseKey
    setProcessEnv({ LECTERN_LICENSE_PUBLIC_KEY: publicKeyPem(await signingKey(cloud.runtime.store)) }, defer)
    onprem = await buildTestApp({ defer })
    await installLicense(onprem.runtime, JSON.stringify(issued.file))
    apiKey = await createKey(onprem)
  })

  it('exports one public library over the endpoint with a license key, in the ImportLibrary shape', async () => {
    const res = await cloud.inject({ method: 'POST', url: '/api/v1/enterprise/export', headers: { authorization: `Bearer ${licenseKey}` }, payload: { library: 'acme/widgets' } })
    expect(res.statusCode).toBe(200)
    exported = res.json()
    expect(exported.libraries).toHaveLength(1)
    const [library] = exported.libraries
    expect(library.project).toBe('/acme/widgets')
    const { store } = cloud.runtime
    const version = (await store.libraries.version((await store.libraries.byId('/acme/widgets'))!.pk, ''))!
    expect(library.codeSnippets.length + library.infoSnippets.length).toBe(await store.snippets.count(version.currentSet!))
    expect(library.codeSnippets[0]).toMatchObject({ title: expect.any(String), codeList: [{ code: expect.any(String), language: expect.any(String) }] })
    expect(library.infoSnippets[0]).toMatchObject({ content: expect.any(String) })
    expect(JSON.stringify(library)).not.toMatch(/embedding|vector/i)
    const slash = await cloud.inject({ method: 'POST', url: '/api/v1/enterprise/export', headers: { authorization: `Bearer ${licenseKey}` }, payload: { library: '/acme/widgets' } })
    expect(slash.json()).toEqual(exported)
  })

  it('imports the JSON payload on-premise and answers the same questions with the same snippets', async () => {
    const res = await importJson(onprem, apiKey, exported)
    expect(res.statusCode).toBe(202)
    expect(res.json()).toEqual({ message: 'Queued 1 library for import', queued: ['/acme/widgets'], skipped: [] })
    expect((await onprem.inject({ url: '/api/parse-status' })).json().activeParses['/acme/widgets']).toMatchObject({ kind: 'import' })
    expect((await waitForLibrary(onprem, '/acme/widgets')).state).toBe('finalized')
    for (const question of QUESTIONS) {
      expect(await contextOf(onprem, '/acme/widgets', question)).toEqual(await contextOf(cloud, '/acme/widgets', question))
    }
    const search = (await onprem.inject({ url: '/api/v2/libs/search?libraryName=widgets' })).json() as { results: Array<{ id: string; imported?: boolean }> }
    expect(search.results.find((r) => r.id === '/acme/widgets')?.imported).toBe(true)
    expect(fs.readdirSync(path.join(onprem.runtime.store.paths.root, 'imports'))).toEqual([])
  })

  it('writes the dashboard bundle and the raw payload with `lectern export`, and refuses more than 50', async () => {
    const zip = path.join(work, 'lectern-libraries.zip')
    const json = path.join(work, 'payload.json')
    const env = { LECTERN_DATA_DIR: cloudDir, LECTERN_MODE: 'cloud' }
    const made = await runCli(['export', '/acme/widgets', '/acme/gadgets', '-o', zip], env)
    expect(made.stderr).toBe('')
    expect(made.exitCode).toBe(0)
    expect(fs.readFileSync(zip).subarray(0, 2).toString()).toBe('PK')
    const raw = await runCli(['export', '/acme/widgets', '--json', '-o', json], env)
    expect(raw.exitCode).toBe(0)
    expect(JSON.parse(fs.readFileSync(json, 'utf8'))).toEqual(exported)
    const many = await runCli(['export', ...Array.from({ length: 51 }, (_, i) => `/acme/lib${i}`)], env)
    expect(many.exitCode).toBe(2)
    expect(many.stderr).toMatch(/At most 50 libraries/)
  })

  it('imports the bundle: existing libraries are skipped unless forced, then force overwrites', async () => {
    const zip = path.join(work, 'lectern-libraries.zip')
    const first = await importZip(onprem, apiKey, zip)
    expect(first.statusCode).toBe(202)
    expect(first.json()).toMatchObject({ queued: ['/acme/gadgets'], skipped: [{ project: '/acme/widgets', reason: expect.stringMatching(/already exists/) }] })
    await waitForLibrary(onprem, '/acme/gadgets')
    for (const question of QUESTIONS) {
      expect(await contextOf(onprem, '/acme/gadgets', question)).toEqual(await contextOf(cloud, '/acme/gadgets', question))
    }
    // As if /acme/widgets had been ingested here before: an import that replaces its snippets drops that ingest's report.
    const { store } = onprem.runtime
    const widgets = (await store.libraries.version((await store.libraries.byId('/acme/widgets'))!.pk, ''))!
    await store.extractionReports.put(widgets.pk, null, '{}')
    const forced = await importZip(onprem, apiKey, zip, { force: 'true' })
    expect(forced.json()).toMatchObject({ queued: ['/acme/widgets', '/acme/gadgets'], skipped: [] })
    await waitForJobsToEnd(onprem)
    expect(await store.extractionReports.get(widgets.pk)).toBeUndefined()

    const changed = structuredClone(exported)
    changed.libraries[0].infoSnippets.push({ content: 'Zebra mode paints every widget in stripes; enable it with zebra: true.', breadcrumb: 'Zebra mode' })
    const skipped = await importJson(onprem, apiKey, changed)
    expect(skipped.json().skipped[0].reason).toMatch(/already exists/)
    const overwritten = await importJson(onprem, apiKey, changed, '?force=true')
    expect(overwritten.json().queued).toEqual(['/acme/widgets'])
    await waitForJobsToEnd(onprem)
    const answer = JSON.stringify(await contextOf(onprem, '/acme/widgets', 'zebra stripes mode'))
    expect(answer).toMatch(/Zebra mode paints/)
  })

  it('imports with `lectern import`: directly on a data dir (running the jobs itself) and through a server with --url/--key', async () => {
    const zip = path.join(work, 'lectern-libraries.zip')
    const dataDir = await tmpDataDir()
    const direct = await buildTestApp({ dataDir, startWorker: false })
    await installLicense(direct.runtime, fs.readFileSync(onprem.runtime.store.paths.license, 'utf8'))
    // A payload file is held to what the route asks: UTF-8, no prototype keys; nothing is imported.
    const latin1 = path.join(work, 'latin1.json')
    fs.writeFileSync(latin1, Buffer.concat([Buffer.from('{"libraries":[{"project":"/acme/caf'), Buffer.from([0xe9]), Buffer.from('"}]}')]))
    const poisoned = path.join(work, 'poisoned.json')
    fs.writeFileSync(poisoned, '{"libraries":[],"__proto__":{"admin":true}}')
    for (const [file, message] of [[latin1, 'is not valid UTF-8 text'], [poisoned, 'may not contain __proto__ or constructor keys']]) {
      const refused = await runCli(['import', file], { LECTERN_DATA_DIR: dataDir })
      expect(refused.exitCode, file).toBe(2)
      expect(refused.stderr.replace(/\s+/g, ' ')).toContain(message)
    }
    expect(await direct.runtime.store.libraries.list()).toEqual([])
    const local = await runCli(['import', zip, '--json'], { LECTERN_DATA_DIR: dataDir })
    expect(local.exitCode, local.stderr).toBe(0)
    expect(JSON.parse(local.stdout)).toMatchObject({ queued: ['/acme/widgets', '/acme/gadgets'], skipped: [], failed: [] })
    expect((await direct.runtime.store.libraries.list()).map((l) => [l.id, l.isImported])).toEqual([['/acme/gadgets', true], ['/acme/widgets', true]])
    expect(await contextOf(direct, '/acme/widgets', QUESTIONS[0])).toEqual(await contextOf(cloud, '/acme/widgets', QUESTIONS[0]))

    // A new version of an imported library is refused: its source is not here (no git is run).
    const { libraries, jobs } = direct.runtime.store
    const widgets = (await libraries.byId('/acme/widgets'))!
    const jobsBefore = (await jobs.list()).length
    const refused = await runCli(['versions', 'add', '/acme/widgets', 'v9.0.0', '--json'], { LECTERN_DATA_DIR: dataDir })
    expect(refused.exitCode).toBe(3)
    expect(JSON.parse(refused.stdout)).toEqual({
      error: 'forbidden',
      message: '/acme/widgets was imported: it has no source on this install to add a version from. A version comes across the air gap as the library did: exported from the cloud (a version pin exports that version) and imported.',
    })
    expect(await libraries.version(widgets.pk, 'v9.0.0')).toBeUndefined()
    expect(await jobs.list()).toHaveLength(jobsBefore)

    const address = await onprem.listen({ port: 0, host: '127.0.0.1' })
    const remote = await runCli(['import', path.join(work, 'payload.json'), '--force', '--url', address, '--key', apiKey, '--json'], {})
    expect(remote.exitCode, remote.stderr).toBe(0)
    expect(JSON.parse(remote.stdout)).toMatchObject({ message: 'Queued 1 library for import', queued: ['/acme/widgets'], failed: [] })
    // A server that is not there, and a key it does not know, are said as such.
    const nobody = `http://127.0.0.1:${await freePort()}`
    const unreachable = await runCli(['import', path.join(work, 'payload.json'), '--url', nobody, '--key', apiKey, '--json'], {})
    expect(unreachable.exitCode).toBe(1)
    expect(JSON.parse(unreachable.stdout)).toEqual({ error: 'source_unreachable', message: `Cannot reach the server at ${nobody}: ECONNREFUSED.` })
    const badKey = await runCli(['import', path.join(work, 'payload.json'), '--url', address, '--key', 'lct_nottherightkey', '--json'], {})
    expect(badKey.exitCode).toBe(3)
    expect(JSON.parse(badKey.stdout)).toMatchObject({ error: 'invalid_api_key' })
  }, 60_000)

  it('refuses refresh of an imported library with 403, and each mode lacks the other mode\'s endpoint', async () => {
    const refresh = await onprem.inject({ method: 'POST', url: '/api/v1/refresh', headers: { authorization: `Bearer ${apiKey}` }, payload: { libraryName: '/acme/widgets' } })
    expect(refresh.statusCode).toBe(403)
    expect(refresh.json().message).toMatch(/Imported libraries cannot be refreshed; export again and import with force/)
    const exportOnPrem = await onprem.inject({ method: 'POST', url: '/api/v1/enterprise/export', payload: { library: '/acme/widgets' } })
    expect(exportOnPrem.statusCode).toBe(404)
    const importInCloud = await cloud.inject({ method: 'POST', url: '/api/import-libraries', headers: { 'content-type': 'application/json' }, payload: '{"libraries":[]}' })
    expect(importInCloud.statusCode).toBe(404)
  })

  it('answers export errors with the spec codes: unknown and private 404, bad key 401, expired license 403, not finalized 202', async () => {
    const { store } = cloud.runtime
    await store.libraries.create({ id: '/acme/secret', title: 'secret', sourceKind: 'github', sourceUrl: 'https://github.com/acme/secret', isPrivate: true })
    await seedDocs(cloud, '/acme/secret')
    await store.libraries.create({ id: '/acme/pending', title: 'pending', sourceKind: 'github', sourceUrl: 'https://github.com/acme/pending' })
    const expired = await issueLicense(store, { customer: 'Old Corp', offline: true, expires: '2020-01-02' }, Date.parse('2020-01-01T00:00:00Z'))
    const post = (auth: string | undefined, library: string) =>
      cloud.inject({ method: 'POST', url: '/api/v1/enterprise/export', headers: auth ? { authorization: auth } : {}, payload: { library } })
    const cases: Array<[string | undefined, string, number, string]> = [
      [`Bearer ${licenseKey}`, '/acme/nothing', 404, 'library_not_found'],
      // A license holder has no access to private libraries: they answer as unknown ones.
      [`Bearer ${licenseKey}`, '/acme/secret', 404, 'library_not_found'],
      [`Bearer ${licenseKey}`, '/acme/pending', 202, 'library_not_finalized'],
      [`Bearer ${licenseKey}`, 'not a library id', 400, 'invalid_library_id'],
      ['Bearer lctl_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '/acme/widgets', 401, 'invalid_api_key'],
      [`Bearer ${await createKey(cloud)}`, '/acme/widgets', 401, 'invalid_api_key'],
      [undefined, '/acme/widgets', 401, 'invalid_api_key'],
      [`Bearer ${expired.licenseKey}`, '/acme/widgets', 403, 'forbidden'],
    ]
    for (const [auth, library, status, error] of cases) {
      const res = await post(auth, library)
      expect({ library, auth: auth?.slice(0, 12), status: res.statusCode, error: res.json().error }).toEqual({ library, auth: auth?.slice(0, 12), status, error })
    }
  })
})

async function waitForJobsToEnd(app: FastifyInstance): Promise<void> {
  const { jobs } = app.runtime.store
  const deadline = Date.now() + 20_000
  while ((await jobs.list({ states: ['queued', 'running'] })).length > 0) {
    if (Date.now() > deadline) throw new Error('jobs did not end')
    await new Promise((r) => setTimeout(r, 50))
  }
  const failed = await jobs.list({ states: ['failed'] })
  if (failed.length > 0) throw new Error(`job failed: ${failed[0].errorMessage}`)
}
