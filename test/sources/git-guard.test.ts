/**
 * The cloud-mode guard of git remotes, against a real git server on 127.0.0.1: what it refuses,
 * and that git really connects to the address that was checked (the pin), not to whatever the
 * name resolves to when git looks it up itself.
 */
import path from 'node:path'
import { execa } from 'execa'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Lookup } from '../../src/sources/address-guard.js'
import { buildGitEnv, cloneRepo, lsRemoteHead } from '../../src/sources/git.js'
import { guardGitRemote } from '../../src/sources/git-guard.js'
import { makeGitRepo } from '../helpers/git.js'
import { startGitServer, type GitServer } from '../helpers/git-server.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

const defer = suiteTeardown()
let server: GitServer
let commit: string
/** A name no resolver knows: only a pin can take git to it. */
const UNKNOWN_NAME = 'pinned.lectern.invalid'

/** A resolver that answers `address` for every name, standing in for a DNS server. */
const answering = (...addresses: string[]): Lookup => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  commit = (await makeGitRepo({ 'README.md': '# Widgets\n' }, { parent: path.join(remotes, 'acme'), name: 'widgets', defer })).commit
  server = await startGitServer(remotes, { defer })
})

describe('guardGitRemote', () => {
  it.each(['ssh://git@git.example.com/acme/widgets.git', 'git://git.example.com/acme/widgets.git', 'file:///srv/acme/widgets', 'git@git.example.com:acme/widgets.git'])(
    'refuses the remote %s with validation_error',
    async (url) => {
      await expect(guardGitRemote(url, { allow: ['git.example.com'] })).rejects.toMatchObject({ code: 'validation_error', message: expect.stringMatching(/cloud mode/) })
    },
  )

  it('refuses a private address, and a name with any private address among its answers', async () => {
    await expect(guardGitRemote(`${server.url}/acme/widgets`, { allow: [] })).rejects.toMatchObject({ code: 'forbidden' })
    await expect(guardGitRemote('https://git.example.com/acme/widgets', { allow: [] }, answering('93.184.216.34', '10.0.0.7'))).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('git.example.com resolves to 10.0.0.7, a private address'),
    })
    await expect(guardGitRemote('https://[::1]/acme/widgets', { allow: [] })).rejects.toMatchObject({ code: 'forbidden' })
  })

  it('says so when the name does not resolve', async () => {
    const failing: Lookup = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' })
    }
    await expect(guardGitRemote('https://git.example.com/acme/widgets', { allow: [] }, failing)).rejects.toMatchObject({ code: 'source_unreachable', message: expect.stringContaining('ENOTFOUND') })
  })

  it('pins a checked name to its addresses, trusts an allowed name as it is, and never follows redirects', async () => {
    expect(await guardGitRemote('https://git.example.com/acme/widgets', { allow: [] }, answering('93.184.216.34', '2606:2800:220:1::1'))).toEqual([
      ['http.followRedirects', 'false'],
      ['http.curloptResolve', 'git.example.com:443:93.184.216.34,[2606:2800:220:1::1]'],
    ])
    expect(await guardGitRemote('http://git.example.com:8080/acme/widgets', { allow: ['10.0.0.0/8'] }, answering('10.1.2.3'))).toEqual([
      ['http.followRedirects', 'false'],
      ['http.curloptResolve', 'git.example.com:8080:10.1.2.3'],
    ])
    expect(await guardGitRemote('https://GIT.example.com/acme/widgets', { allow: ['git.example.com'] }, answering('10.1.2.3'))).toEqual([['http.followRedirects', 'false']])
  })

  it('git connects to the pinned address: a name no resolver knows reaches the server that was checked', async () => {
    const url = `http://${UNKNOWN_NAME}:${server.port}/acme/widgets`
    const pinned = await guardGitRemote(url, { allow: ['127.0.0.0/8'] }, answering('127.0.0.1'))
    const { stdout } = await execa('git', ['ls-remote', '--', url, 'HEAD'], { env: buildGitEnv(process.env, undefined, pinned), extendEnv: false })
    expect(stdout.split('\t')[0]).toBe(commit)
    expect(server.requests.at(-1)?.host).toBe(`${UNKNOWN_NAME}:${server.port}`)
  })
})

describe('git commands with a guard', () => {
  it('clone and ls-remote check before git runs: nothing reaches a refused server', async () => {
    const before = server.requests.length
    const dest = path.join(await tmpDir(), 'clone')
    await expect(cloneRepo({ cloneUrl: `${server.url}/acme/widgets`, destDir: dest, guard: { allow: [] } })).rejects.toMatchObject({ code: 'forbidden' })
    await expect(lsRemoteHead(`${server.url}/acme/widgets`, undefined, undefined, undefined, { guard: { allow: [] } })).rejects.toMatchObject({ code: 'forbidden' })
    expect(server.requests.length).toBe(before)
    expect(await lsRemoteHead(`${server.url}/acme/widgets`, undefined, undefined, undefined, { guard: { allow: ['127.0.0.1'] } })).toBe(commit)
  })
})
