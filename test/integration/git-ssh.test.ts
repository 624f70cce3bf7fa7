/**
 * Git over SSH against a real OpenSSH server on loopback (Debian's sshd, git-shell as the deploy
 * key's only command): a library at an ssh:// URL is indexed through the install's SSH git
 * connection (its deploy key, its known hosts); a host whose key is unknown or changed is
 * refused, saying which, and nothing is fetched; the key's file is gone after each command;
 * an SSH repository without a connection, a bad key or bad known hosts are refused when added,
 * storing nothing; the cloud refuses SSH altogether.
 */
import { readdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { git, makeGitRepo } from '../helpers/git.js'
import { pollUntil } from '../helpers/poll.js'
import { signIn } from '../helpers/session.js'
import { startSshGitHost, type SshGitHost } from '../helpers/sshd.js'
import { setProcessEnv, suiteTeardown, tmpDir } from '../helpers/tmp.js'

const teardown = suiteTeardown()
const guide = (word: string) => `# Widgets\n\n## Install\n\nInstall widgets with the package manager.\n\n\`\`\`bash\nnpm install ${word}\n\`\`\`\n`

async function setUp() {
  const root = await tmpDir('lectern-ssh-repos-')
  const repo = await makeGitRepo({ 'docs/guide.md': guide('widgets-over-ssh') }, { parent: path.join(root, 'acme'), name: 'widgets' })
  const host = await startSshGitHost(root, teardown)
  // The deploy key's files go under a directory of this test's own, to be seen gone after each command.
  const temp = await tmpDir('lectern-ssh-tmp-')
  setProcessEnv({ TMPDIR: temp })
  const app = await buildTestApp()
  const admin = { cookie: `lectern_session=${(await signIn(app, 'admin')).lectern_session}` }
  const key = await createKey(app)
  return { app, admin, key, host, repo, temp }
}

const connect = (app: FastifyInstance, admin: Record<string, string>, host: SshGitHost, fields: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/api/connections', headers: admin, payload: { kind: 'git', name: 'ssh-git', host: `ssh://127.0.0.1:${host.port}`, token: host.deployKey, knownHosts: host.knownHosts, ...fields } })

const addRepository = (app: FastifyInstance, key: string, url: string) => app.inject({ method: 'POST', url: '/api/v2/add/repo/git', headers: { authorization: `Bearer ${key}` }, payload: { docsRepoUrl: url } })

async function lastJob(app: FastifyInstance) {
  return await pollUntil('the refresh to end', async () => {
    const [job] = await app.runtime.store.jobs.list({ limit: 1 })
    return job && (job.state === 'failed' || job.state === 'succeeded') ? job : undefined
  })
}

describe('git over SSH', () => {
  it('indexes a repository with the deploy key of the SSH connection, and refuses an unknown or changed host key, fetching nothing', async () => {
    const { app, admin, key, host, repo, temp } = await setUp()
    const created = await connect(app, admin, host)
    expect(created.statusCode, created.body).toBe(201)
    expect(created.json()).toMatchObject({ kind: 'git', baseUrl: `ssh://127.0.0.1:${host.port}`, publicKey: host.deployPublicKey.split(' ').slice(0, 2).join(' ') + ' deploy' })
    expect(created.body).not.toContain('PRIVATE KEY')

    const added = await addRepository(app, key, host.url('acme/widgets'))
    expect(added.statusCode, added.body).toBe(200)
    const id = added.json().libraryName as string
    expect((await waitForLibrary(app, id)).state).toBe('finalized')
    expect((await app.inject({ url: `/api/v2/context?libraryId=${id}&query=install&type=txt` })).body).toContain('npm install widgets-over-ssh')
    expect((await readdir(temp)).filter((name) => name.startsWith('lectern-ssh-'))).toEqual([])

    // A new commit, but a host key the connection does not trust: refused, and the library keeps what it served.
    await writeFile(path.join(repo.dir, 'docs/guide.md'), guide('widgets-changed'))
    await git(['commit', '-qam', 'change'], repo.dir)
    const refresh = () => app.inject({ method: 'POST', url: '/api/v1/refresh', headers: { authorization: `Bearer ${key}` }, payload: { libraryName: id } })
    const replace = async (knownHosts: string) => {
      expect((await app.inject({ method: 'DELETE', url: '/api/connections/ssh-git', headers: admin })).statusCode).toBe(200)
      expect((await connect(app, admin, host, { knownHosts })).statusCode).toBe(201)
    }

    await replace(host.otherKnownHosts)
    expect((await refresh()).statusCode).toBe(200)
    const changed = await lastJob(app)
    expect(changed).toMatchObject({ state: 'failed', errorCode: 'source_unreachable' })
    expect(changed.errorMessage).toContain(`the SSH host key of 127.0.0.1:${host.port} has CHANGED`)

    // Only a certificate authority for the host, which signed no key of its: no key of the host is known.
    await replace(`@cert-authority [127.0.0.1]:${host.port} ${host.otherKnownHosts.split(' ').slice(1).join(' ').trim()}\n`)
    expect((await refresh()).statusCode).toBe(200)
    const unknown = await lastJob(app)
    expect(unknown).toMatchObject({ state: 'failed', errorCode: 'source_unreachable' })
    expect(unknown.errorMessage).toContain('is unknown: none of the connection')
    expect((await app.inject({ url: `/api/v2/context?libraryId=${id}&query=install&type=txt` })).body).toContain('npm install widgets-over-ssh')

    // The right key again: the new commit is read.
    await replace(host.knownHosts)
    expect((await refresh()).statusCode).toBe(200)
    expect(await lastJob(app)).toMatchObject({ state: 'succeeded' })
    expect((await app.inject({ url: `/api/v2/context?libraryId=${id}&query=install&type=txt` })).body).toContain('npm install widgets-changed')
    expect((await readdir(temp)).filter((name) => name.startsWith('lectern-ssh-'))).toEqual([])
  })

  it('refuses an SSH repository without a connection, a bad key and bad known hosts, storing nothing; the cloud has no SSH', async () => {
    const { app, admin, key, host } = await setUp()
    const noConnection = await addRepository(app, key, host.url('acme/widgets'))
    expect(noConnection.statusCode).toBe(400)
    expect(noConnection.json().message).toContain(`No SSH git connection for 127.0.0.1:${host.port}`)
    expect(await app.runtime.store.libraries.list()).toEqual([])

    const refusals: Array<[Record<string, string>, string]> = [
      [{ token: 'not a key' }, 'not an unencrypted private key'],
      [{ knownHosts: `[127.0.0.1]:${host.port + 1} ${host.knownHosts.split(' ').slice(1).join(' ')}` }, `None of the known hosts is for [127.0.0.1]:${host.port}`],
      [{ knownHosts: 'garbage\n' }, 'known hosts line 1 is not'],
      [{ host: 'ssh://127.0.0.1:99999' }, 'is not an SSH host'],
    ]
    for (const [fields, message] of refusals) {
      const refused = await connect(app, admin, host, fields)
      expect(refused.statusCode, refused.body).toBe(400)
      expect(refused.json().message).toContain(message)
    }
    expect(await app.runtime.store.connections.list({ teamPk: null })).toEqual([])

    const cloud = await buildTestApp({ mode: 'cloud' })
    const operator = { cookie: `lectern_session=${(await signIn(cloud, 'admin')).lectern_session}` }
    const inCloud = await connect(cloud, operator, host)
    expect(inCloud.statusCode).toBe(400)
    expect(inCloud.json().message).toContain('SSH git connections are for on-premise installs')
  })
})
