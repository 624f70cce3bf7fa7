/**
 * The pure parts of push webhooks and git over SSH: how each provider's delivery is read and
 * proved, how a push and a library are matched to one repository, and how SSH hosts, known hosts
 * and ssh's host key complaints are read.
 */
import { createHmac, randomBytes } from 'node:crypto'
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkKnownHosts, knownHostsName, parseSshHost, sshProblem, sweepStaleSshDirs } from '../../src/sources/git-ssh.js'
import { setProcessEnv, tmpDir } from '../helpers/tmp.js'
import { isSshUrl, parseRepoUrl } from '../../src/sources/repo-url.js'
import { deliveryOf, pushOf, repositoryOf, verifyDelivery } from '../../src/webhooks/providers.js'
import { repositoryKey } from '../../src/webhooks/receive.js'

const KEY = 'AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl'
const body = Buffer.from('{"ref":"refs/heads/main"}')
const hmac = (secret: string) => createHmac('sha256', secret).update(body).digest('hex')

describe('webhook deliveries', () => {
  it('are proved by the signature of their exact body (GitHub, Gitea) or the token itself (GitLab)', () => {
    const secret = 'a-webhook-secret-long-enough'
    expect(verifyDelivery('github', { 'x-hub-signature-256': `sha256=${hmac(secret)}` }, body, secret)).toBe(true)
    expect(verifyDelivery('github', { 'x-hub-signature-256': `sha256=${hmac(secret).toUpperCase()}` }, body, secret)).toBe(true)
    expect(verifyDelivery('github', { 'x-hub-signature-256': hmac(secret) }, body, secret)).toBe(false)
    expect(verifyDelivery('github', { 'x-hub-signature-256': `sha256=${hmac('another-secret')}` }, body, secret)).toBe(false)
    expect(verifyDelivery('github', {}, body, secret)).toBe(false)
    expect(verifyDelivery('github', { 'x-hub-signature-256': `sha256=${hmac(secret)}` }, Buffer.from(`${body} `), secret)).toBe(false)
    expect(verifyDelivery('gitea', { 'x-gitea-signature': hmac(secret) }, body, secret)).toBe(true)
    expect(verifyDelivery('gitea', { 'x-gitea-signature': hmac(secret).slice(1) }, body, secret)).toBe(false)
    expect(verifyDelivery('gitlab', { 'x-gitlab-token': secret }, body, secret)).toBe(true)
    expect(verifyDelivery('gitlab', { 'x-gitlab-token': `${secret}x` }, body, secret)).toBe(false)
    expect(verifyDelivery('gitlab', { 'x-gitlab-token': '' }, body, secret)).toBe(false)
  })

  it('name their event and delivery in headers, and a push its branch; a tag or a deleted branch is no branch', () => {
    expect(deliveryOf('gitlab', { 'x-gitlab-event': 'Push Hook', 'idempotency-key': 'k-1' })).toEqual({ provider: 'gitlab', id: 'k-1', event: 'Push Hook', isPush: true })
    expect(deliveryOf('github', { 'x-github-event': 'ping', 'x-github-delivery': 'd-1' }).isPush).toBe(false)
    expect(() => deliveryOf('gitea', { 'x-gitea-event': 'push' })).toThrow(/no x-gitea-delivery/)
    expect(() => deliveryOf('github', { 'x-github-delivery': 'd' })).toThrow(/no x-github-event/)
    const repository = repositoryOf('github', { repository: { html_url: 'https://ghe.acme.example/acme/widgets', ssh_url: 'git@ghe.acme.example:acme/widgets.git', default_branch: 'main' } })!
    expect(repository).toEqual({ webUrl: 'https://ghe.acme.example/acme/widgets', cloneUrls: ['git@ghe.acme.example:acme/widgets.git'], defaultBranch: 'main' })
    expect(repositoryOf('gitlab', { repository: {} })).toBeUndefined()
    expect(pushOf(repository, { ref: 'refs/heads/release/2.x' }).branch).toBe('release/2.x')
    expect(pushOf(repository, { ref: 'refs/tags/v1.0.0' }).branch).toBeNull()
    expect(pushOf(repository, { ref: 'refs/heads/main', after: '0'.repeat(40) }).branch).toBeNull()
    expect(() => pushOf(repository, {})).toThrow(/names no ref/)
  })

  it('match a push and a library by host and path, whatever the URL form', () => {
    const key = 'git.acme.internal/acme/widgets'
    for (const url of [
      'https://git.acme.internal/acme/widgets',
      'https://git.acme.internal:443/acme/widgets.git',
      'https://GIT.acme.internal/Acme/Widgets/',
      'ssh://git@git.acme.internal:22/acme/widgets.git',
      'git@git.acme.internal:acme/widgets.git',
    ]) {
      expect(repositoryKey(url), url).toBe(key)
    }
    // Another port is another service, whatever the name.
    expect(repositoryKey('ssh://git@git.acme.internal:2222/acme/widgets.git')).toBe('git.acme.internal:2222/acme/widgets')
    expect(repositoryKey('http://git.acme.internal:3000/acme/widgets')).toBe('git.acme.internal:3000/acme/widgets')
    expect(repositoryKey('https://www.github.com/acme/widgets')).toBe('github.com/acme/widgets')
    expect(repositoryKey('not a url')).toBeUndefined()
    expect(repositoryKey('https://git.acme.internal/')).toBeUndefined()
  })
})

describe('git over SSH', () => {
  it('reads an SSH host with its port, and tells SSH URLs from https ones', () => {
    expect(parseSshHost('ssh://Git.Acme.Internal:2222')).toEqual({ host: 'git.acme.internal', port: 2222 })
    expect(parseSshHost('git@git.acme.internal')).toEqual({ host: 'git.acme.internal', port: 22 })
    for (const bad of ['ssh://host:0', 'ssh://host:70000', 'ssh://host/path', 'host name', '']) expect(() => parseSshHost(bad), bad).toThrow(/is not an SSH host/)
    expect(knownHostsName('h', 22)).toBe('h')
    expect(knownHostsName('h', 2222)).toBe('[h]:2222')
    expect(isSshUrl('ssh://git@h/a/b')).toBe(true)
    expect(isSshUrl('git@h:a/b.git')).toBe(true)
    expect(isSshUrl('https://h/a/b')).toBe(false)
    // Nothing ssh could read as an option.
    for (const url of ['-oProxyCommand=x@h:a/b', 'git@-oProxyCommand=x:a/b', 'ssh://-oProxyCommand=x@h/a/b', 'ssh://git@-h/a/b']) expect(() => parseRepoUrl(url), url).toThrow()
  })

  it('takes known hosts only when every line is one and one is for the host', () => {
    expect(checkKnownHosts(`# comment\n\n[h]:2222 ssh-ed25519 ${KEY}\n`, 'h', 2222)).toBe(`[h]:2222 ssh-ed25519 ${KEY}\n`)
    expect(checkKnownHosts(`other,h ssh-ed25519 ${KEY} comment`, 'h', 22)).toContain('other,h')
    expect(checkKnownHosts(`@cert-authority *.acme.internal ssh-ed25519 ${KEY}`, 'git.acme.internal', 22)).toContain('@cert-authority')
    const salt = randomBytes(20)
    const hashed = (name: string) => `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`
    expect(checkKnownHosts(`${hashed('[h]:2222')} ssh-ed25519 ${KEY}`, 'h', 2222)).toContain('|1|')
    expect(() => checkKnownHosts(`${hashed('other')} ssh-ed25519 ${KEY}`, 'h', 22)).toThrow(/None of the known hosts is for h/)
    expect(() => checkKnownHosts(`*.acme.internal ssh-ed25519 ${KEY}`, 'h.acme.internal', 22)).toThrow(/is a pattern/)
    expect(() => checkKnownHosts(`@revoked h ssh-ed25519 ${KEY}`, 'h', 22)).toThrow(/None of the known hosts/)
    expect(() => checkKnownHosts('', 'h', 22)).toThrow(/at least one for h/)
    expect(() => checkKnownHosts(`h ssh-ed25519 ${KEY}`, 'h', 2222)).toThrow(/None of the known hosts is for \[h\]:2222/)
    expect(() => checkKnownHosts(`h ssh-dss ${KEY}`, 'h', 22)).toThrow(/line 1 is not/)
    expect(() => checkKnownHosts(`h ssh-ed25519 not*base64`, 'h', 22)).toThrow(/line 1 is not/)
    expect(() => checkKnownHosts(`@trusted h ssh-ed25519 ${KEY}`, 'h', 22)).toThrow(/not a marker/)
  })

  it('sweeps the deploy key directories of dead processes, not those of commands that may still run', async () => {
    const temp = await tmpDir()
    setProcessEnv({ TMPDIR: temp })
    const old = path.join(temp, 'lectern-ssh-old')
    const fresh = path.join(temp, 'lectern-ssh-fresh')
    for (const dir of [old, fresh, path.join(temp, 'other-old')]) await mkdir(dir)
    await writeFile(path.join(old, 'id'), 'key')
    const hoursAgo = new Date(Date.now() - 2 * 3_600_000)
    for (const dir of [old, path.join(temp, 'other-old')]) await utimes(dir, hoursAgo, hoursAgo)
    expect(await sweepStaleSshDirs()).toBe(1)
    expect((await readdir(temp)).sort()).toEqual(['lectern-ssh-fresh', 'other-old'])
  })

  it('says whether a host key was unknown or changed', () => {
    expect(sshProblem('WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!; Host key verification failed.', 'h:2222')).toMatch(/^the SSH host key of h:2222 has CHANGED/)
    expect(sshProblem('No ED25519 host key is known for [h]:2222 and you have requested strict checking.; Host key verification failed.', 'h:2222')).toMatch(/^the SSH host key of h:2222 is unknown/)
    expect(sshProblem('git@h: Permission denied (publickey).', 'h')).toMatch(/^h refused the deploy key/)
    expect(sshProblem('Connection refused', 'h')).toBeUndefined()
  })
})
