/**
 * Push webhooks against a real git server (git http-backend on loopback): a signed push from
 * GitHub, GitLab or Gitea refreshes the libraries cloned from the repository on the branch pushed
 * to, and the new commit's docs are served; a push to the GitOps manifest's repository syncs it.
 * A bad signature, a missing secret and a replayed delivery are refused, change nothing and are
 * audited; other events and tag pushes are answered and ignored; the cloud has no webhooks.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { git, makeGitRepo, type GitRepo } from '../helpers/git.js'
import { heldByTest, testClaimer } from '../helpers/jobs.js'
import { startGitServer } from '../helpers/git-server.js'
import { pollUntil } from '../helpers/poll.js'
import { signIn } from '../helpers/session.js'
import { tmpDir } from '../helpers/tmp.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'

const guide = (word: string) => `# Widgets\n\n## Install\n\nInstall widgets with the package manager.\n\n\`\`\`bash\nnpm install ${word}\n\`\`\`\n`

type Provider = 'github' | 'gitlab' | 'gitea'

interface Sent {
  provider: Provider
  event?: string
  delivery?: string
  ref?: string
  repo?: string
  /** The secret the delivery is signed with. */
  secret: string
  extra?: Record<string, unknown>
}

/** With `startWorker: false` nothing runs the jobs: the library is created, not ingested, and the test plays the runner. */
async function setUp(options: { startWorker?: boolean } = {}) {
  const root = await tmpDir('lectern-webhooks-')
  const widgets = await makeGitRepo({ 'docs/guide.md': guide('widgets-one') }, { parent: path.join(root, 'acme'), name: 'widgets' })
  const manifest = await makeGitRepo({ 'repos.yaml': 'repos: []\n' }, { parent: path.join(root, 'ops'), name: 'sources' })
  const server = await startGitServer(root)
  const app = await buildTestApp(options)
  const admin = { cookie: `lectern_session=${(await signIn(app, 'admin')).lectern_session}` }
  await app.runtime.store.connections.create(INSTALL_CONNECTIONS, { kind: 'git', name: 'local-git', baseUrl: server.url, token: 'unused-token' })
  const made = await app.inject({ method: 'PUT', url: '/api/connections/local-git/webhook', headers: admin, payload: {} })
  expect(made.statusCode, made.body).toBe(200)
  const secret = made.json().secret as string
  if (options.startWorker === false) {
    await app.runtime.store.libraries.create({ id: '/acme/widgets', title: 'widgets', sourceKind: 'git', sourceUrl: `${server.url}/acme/widgets` })
  } else {
    const key = await createKey(app)
    const added = await app.inject({ method: 'POST', url: '/api/v2/add/repo/git', headers: { authorization: `Bearer ${key}` }, payload: { docsRepoUrl: `${server.url}/acme/widgets` } })
    expect(added.statusCode, added.body).toBe(200)
    expect((await waitForLibrary(app, '/acme/widgets')).state).toBe('finalized')
  }

  const send = (sent: Sent) => {
    const repo = sent.repo ?? `${server.url}/acme/widgets`
    const ref = sent.ref ?? 'refs/heads/main'
    // Each push names a commit of its own: two pushes are never the same bytes.
    const after = randomBytes(20).toString('hex')
    const body = Buffer.from(
      JSON.stringify(
        sent.provider === 'gitlab'
          ? { object_kind: 'push', ref, after, project: { web_url: repo, git_http_url: `${repo}.git`, default_branch: 'main' }, ...sent.extra }
          : { ref, after, repository: { html_url: repo, clone_url: `${repo}.git`, default_branch: 'main' }, ...sent.extra },
      ),
    )
    const hmac = createHmac('sha256', sent.secret).update(body).digest('hex')
    const delivery = sent.delivery ?? randomUUID()
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (sent.provider === 'github') Object.assign(headers, { 'x-github-event': sent.event ?? 'push', 'x-github-delivery': delivery, 'x-hub-signature-256': `sha256=${hmac}` })
    if (sent.provider === 'gitea') Object.assign(headers, { 'x-gitea-event': sent.event ?? 'push', 'x-gitea-delivery': delivery, 'x-gitea-signature': hmac })
    if (sent.provider === 'gitlab') Object.assign(headers, { 'x-gitlab-event': sent.event ?? 'Push Hook', 'x-gitlab-event-uuid': delivery, 'x-gitlab-token': sent.secret })
    return app.inject({ method: 'POST', url: `/api/webhooks/${sent.provider}`, headers, payload: body })
  }
  return { app, admin, server, widgets, manifest, secret, send }
}

const commit = async (repo: GitRepo, file: string, text: string) => {
  await writeFile(path.join(repo.dir, file), text)
  await git(['commit', '-qam', `change ${file}`], repo.dir)
}

const snippetText = async (app: FastifyInstance) => (await app.inject({ url: '/api/v2/context?libraryId=/acme/widgets&query=install&type=txt' })).body

const jobCount = async (app: FastifyInstance) => (await app.runtime.store.jobs.list()).length

const idle = (app: FastifyInstance) => pollUntil('jobs to end', async () => ((await app.runtime.store.jobs.list({ states: ['queued', 'running'] })).length === 0 ? true : undefined), 30_000)

describe('push webhooks', () => {
  it('refresh the libraries of the repository and branch a signed push names, from GitHub, GitLab and Gitea', async () => {
    const { app, widgets, secret, send } = await setUp()
    for (const [provider, word] of [['github', 'widgets-two'], ['gitlab', 'widgets-three'], ['gitea', 'widgets-four']] as const) {
      await commit(widgets, 'docs/guide.md', guide(word))
      const res = await send({ provider, secret })
      expect(res.statusCode, res.body).toBe(202)
      expect(res.json()).toMatchObject({ provider, status: 'queued', branch: 'main', gitops: false, libraries: [{ libraryId: '/acme/widgets', state: 'queued' }] })
      await idle(app)
      expect(await snippetText(app)).toContain(`npm install ${word}`)
    }
    const events = await app.runtime.store.audit.list({ action: 'webhook.received' }, { limit: 10 })
    expect(events.map((e) => [e.actor.kind, e.actor.name, e.details.provider])).toEqual([
      ['webhook', 'gitea via local-git', 'gitea'],
      ['webhook', 'gitlab via local-git', 'gitlab'],
      ['webhook', 'github via local-git', 'github'],
    ])
    expect(JSON.stringify(await app.runtime.store.audit.list({}, { limit: 100 }))).not.toContain(secret)
  })

  it('do not lose a push to a running ingest: it runs again when it ends', async () => {
    const { app, secret, send } = await setUp({ startWorker: false })
    const first = (await send({ provider: 'github', secret })).json()
    expect(first.libraries).toMatchObject([{ libraryId: '/acme/widgets', state: 'queued' }])
    expect((await send({ provider: 'github', secret })).json().libraries).toMatchObject([{ state: 'already queued', job: first.libraries[0].job }])
    const running = await app.runtime.store.jobs.claimNext(testClaimer)
    expect(running?.pk).toBe(first.libraries[0].job)
    expect((await send({ provider: 'gitlab', secret })).json().libraries).toMatchObject([{ state: 'after the running job', job: running!.pk }])
    await app.runtime.store.jobs.succeed(heldByTest(running!.pk))
    const again = (await app.runtime.store.jobs.list({ states: ['queued'] }))[0]
    expect(again).toMatchObject({ kind: 'ingest', libraryPk: running!.libraryPk, payload: running!.payload })
  })

  it('leave libraries on other branches and repositories alone, and ignore other events and tag pushes', async () => {
    const { app, server, secret, send } = await setUp()
    const before = await jobCount(app)
    const feature = await send({ provider: 'github', secret, ref: 'refs/heads/feature' })
    expect(feature.statusCode).toBe(200)
    expect(feature.json()).toMatchObject({ status: 'ignored', branch: 'feature', libraries: [], reason: expect.stringContaining('no library follows') })
    expect((await send({ provider: 'github', secret, repo: `${server.url}/acme/gadgets` })).json()).toMatchObject({ status: 'ignored', libraries: [] })
    const ping = await send({ provider: 'github', secret, event: 'ping', extra: { zen: 'Keep it logically awesome.' } })
    expect(ping.statusCode).toBe(200)
    expect(ping.json()).toMatchObject({ status: 'ignored', event: 'ping', reason: expect.stringContaining('only pushes') })
    const tag = await send({ provider: 'gitlab', secret, ref: 'refs/tags/v1.0.0' })
    expect(tag.statusCode).toBe(200)
    expect(tag.json()).toMatchObject({ status: 'ignored', reason: expect.stringContaining('tag') })
    const deleted = await send({ provider: 'github', secret, extra: { deleted: true, after: '0'.repeat(40) } })
    expect(deleted.json().status).toBe('ignored')
    expect(await jobCount(app)).toBe(before)
  })

  it('refuse a bad signature, a host without a secret and a replayed delivery, change nothing and audit each', async () => {
    const { app, admin, server, secret, send } = await setUp()
    const before = await jobCount(app)

    for (const provider of ['github', 'gitlab', 'gitea'] as const) {
      const forged = await send({ provider, secret: 'not-the-webhook-secret-at-all' })
      expect(forged.statusCode, forged.body).toBe(401)
      expect(forged.json()).toMatchObject({ error: 'invalid_signature', message: expect.stringContaining('not signed with the webhook secret of any git connection') })
    }
    // A signature of another body: the signature covers the exact bytes.
    const payload = JSON.stringify({ ref: 'refs/heads/main', repository: { html_url: `${server.url}/acme/widgets`, default_branch: 'main' } })
    const wrongBody = await app.inject({
      method: 'POST',
      url: '/api/webhooks/github',
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(`${payload} `).digest('hex')}` },
      payload,
    })
    expect(wrongBody.statusCode).toBe(401)
    // Signed with this host's secret, but naming a repository elsewhere: refused, and no clone URL elsewhere is followed either.
    const elsewhere = await send({ provider: 'github', secret, repo: 'https://git.other.example/acme/widgets' })
    expect(elsewhere.statusCode).toBe(401)
    expect(elsewhere.json().message).toContain('names a repository on another host')
    const foreignClone = await send({ provider: 'github', secret, extra: { repository: { html_url: `${server.url}/acme/nothing`, clone_url: `http://localhost:1/acme/widgets.git`, default_branch: 'main' } } })
    expect(foreignClone.json()).toMatchObject({ status: 'ignored', libraries: [] })

    const delivery = randomUUID()
    expect((await send({ provider: 'github', secret, delivery })).statusCode).toBe(202)
    await idle(app)
    const queued = await jobCount(app)
    const replay = await send({ provider: 'github', secret, delivery })
    expect(replay.statusCode).toBe(409)
    expect(replay.json()).toMatchObject({ error: 'delivery_replayed', message: expect.stringContaining(delivery) })
    expect(await jobCount(app)).toBe(queued)

    // Without the secret (removed), every delivery for the host is refused.
    expect((await app.inject({ method: 'DELETE', url: '/api/connections/local-git/webhook', headers: admin })).json()).toMatchObject({ name: 'local-git', webhook: false })
    expect((await send({ provider: 'github', secret })).statusCode).toBe(401)
    expect(await jobCount(app)).toBe(queued)
    expect(queued).toBe(before + 1)

    // Unproven refusals are recorded once a minute per provider and reason, so a flood cannot fill the log.
    const refused = await app.runtime.store.audit.list({ action: 'webhook.refused' }, { limit: 20 })
    expect(refused.map((e) => [e.outcome, e.details.provider, e.details.reason])).toEqual([
      ['blocked', 'github', 'replayed'],
      ['blocked', 'github', expect.stringContaining('names a repository on another host')],
      ['blocked', 'gitea', 'bad signature'],
      ['blocked', 'gitlab', 'bad signature'],
      ['blocked', 'github', 'bad signature'],
    ])
    expect(refused.every((e) => e.address === '127.0.0.1')).toBe(true)
    expect(refused[0].target).toBe(`${server.url}/acme/widgets`)
    const changes = await app.runtime.store.audit.list({ action: 'webhook.secret' }, { limit: 5 })
    expect(changes.map((e) => e.details.webhookSecret)).toEqual(['removed', 'generated'])
  })

  it('refuse the body of an acted-on delivery again under a new delivery ID', async () => {
    const { app, server, secret } = await setUp({ startWorker: false })
    const body = JSON.stringify({ ref: 'refs/heads/main', after: 'b'.repeat(40), repository: { html_url: `${server.url}/acme/widgets`, default_branch: 'main' } })
    const deliver = (id: string) =>
      app.inject({
        method: 'POST',
        url: '/api/webhooks/gitea',
        headers: { 'content-type': 'application/json', 'x-gitea-event': 'push', 'x-gitea-delivery': id, 'x-gitea-signature': createHmac('sha256', secret).update(body).digest('hex') },
        payload: body,
      })
    expect((await deliver('first')).statusCode).toBe(202)
    // The same signed bytes under another ID: the ID is not signed, so the body decides.
    const again = await deliver('second')
    expect(again.statusCode, again.body).toBe(409)
    expect(again.json().error).toBe('delivery_replayed')
  })

  it('answer malformed deliveries with validation errors, and do not exist in the cloud', async () => {
    const { app, secret } = await setUp()
    // Signed with the secret: what is refused is the delivery's content, read only once it is proved.
    const post = (provider: string, headers: Record<string, string>, payload: string) =>
      app.inject({ method: 'POST', url: `/api/webhooks/${provider}`, headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`, ...headers }, payload })
    expect((await post('bitbucket', {}, '{}')).statusCode).toBe(400)
    expect((await post('github', { 'x-github-event': 'push', 'x-github-delivery': 'd0', 'x-hub-signature-256': 'sha256=00' }, '{}')).json().error).toBe('invalid_signature')
    const noDelivery = await post('github', { 'x-github-event': 'push' }, '{}')
    expect(noDelivery.json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining('x-github-delivery') })
    const notJson = await post('github', { 'x-github-event': 'push', 'x-github-delivery': 'd1' }, 'payload=%7B%7D')
    expect(notJson.json()).toMatchObject({ error: 'validation_error', message: 'The delivery is not valid JSON.' })
    const noRepo = await post('github', { 'x-github-event': 'push', 'x-github-delivery': 'd2' }, '{"ref":"refs/heads/main"}')
    expect(noRepo.json()).toMatchObject({ error: 'validation_error', message: 'The push names no repository.' })
    const form = await app.inject({ method: 'POST', url: '/api/webhooks/github', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-github-event': 'push', 'x-github-delivery': 'd3' }, payload: 'payload=%7B%7D' })
    expect(form.json()).toMatchObject({ error: 'validation_error', message: expect.stringContaining('Content-Type: application/json') })

    const cloud = await buildTestApp({ mode: 'cloud' })
    expect((await cloud.inject({ method: 'POST', url: '/api/webhooks/github', headers: { 'content-type': 'application/json' }, payload: '{}' })).statusCode).toBe(404)
  })

  it('run a GitOps sync for a push to the manifest repository and branch', async () => {
    const { app, admin, server, manifest, secret, send } = await setUp()
    expect((await app.inject({ method: 'PUT', url: '/api/gitops/config', headers: admin, payload: { repoUrl: `${server.url}/ops/sources`, enabled: true } })).statusCode).toBe(200)
    await commit(manifest, 'repos.yaml', `repos:\n  - url: ${server.url}/acme/gadgets\n`)
    await makeGitRepo({ 'docs/guide.md': guide('gadgets') }, { parent: path.join(path.dirname(path.dirname(manifest.dir)), 'acme'), name: 'gadgets' })
    const res = await send({ provider: 'gitea', secret, repo: `${server.url}/ops/sources` })
    expect(res.statusCode, res.body).toBe(202)
    expect(res.json()).toMatchObject({ gitops: true, libraries: [] })
    const status = await pollUntil(
      'the webhook sync',
      async () => {
        const last = (await app.inject({ url: '/api/gitops/status', headers: admin })).json()
        return last.lastSync?.trigger === 'webhook' ? last : undefined
      },
      30_000,
    )
    expect(status.lastSync).toMatchObject({ created: 1, failed: 0 })
    expect((await waitForLibrary(app, '/acme/gadgets')).state).toBe('finalized')
    // A push to another branch of the manifest's repository does not sync.
    expect((await send({ provider: 'gitea', secret, repo: `${server.url}/ops/sources`, ref: 'refs/heads/draft' })).json().gitops).toBe(false)
  })
})
