/**
 * `lectern connections add|list|remove` (in this process, and as a separate process where it matters), the
 * tokens kept out of output and out of the database in plain text, `add confluence|notion`
 * refusing unknown connections, the audit of each change, and the git job's fallback to a stored
 * git connection.
 */
import fs from 'node:fs'
import path from 'node:path'
import { execa } from 'execa'
import { beforeAll, describe, expect, it } from 'vitest'
import AddConfluence from '../../commands/add/confluence.js'
import AddNotion from '../../commands/add/notion.js'
import ConnectionsAdd from '../../commands/connections/add.js'
import ConnectionsRemove from '../../commands/connections/remove.js'
import { gitToken } from '../../src/sources/git-token.js'
import { openStore } from '../../src/store/index.js'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { setProcessEnv, suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { INSTALL_CONNECTIONS } from '../../src/store/connections.js'

const defer = suiteTeardown()
const CONFLUENCE_TOKEN = 'ATATT-cli-confluence-3e8d1a'
const NOTION_TOKEN = 'secret_cli_notion_a7c4b2'
const GIT_TOKEN = 'glpat-cli-git-0f9e8d7c'
let dataDir: string

/**
 * Commands in this process: a CLI process costs seconds of start-up on a loaded machine, so only
 * the two paths that depend on the process (stdin, JSON on stdout) spawn one.
 */
async function run(command: { run(argv: string[], opts: string): Promise<unknown> }, args: string[]): Promise<{ exit: number; message: string }> {
  try {
    await command.run([...args, '--data-dir', dataDir], PROJECT_ROOT)
    return { exit: 0, message: '' }
  } catch (err) {
    const error = err as Error & { oclif?: { exit?: number } }
    return { exit: error.oclif?.exit ?? 1, message: error.message }
  }
}

beforeAll(async () => {
  dataDir = await tmpDataDir(defer)
  setProcessEnv({ ACME_TOKEN: CONFLUENCE_TOKEN }, defer)
  expect(await run(ConnectionsAdd, ['confluence', '--name', 'acme', '--site', 'https://acme.atlassian.net/wiki/', '--email', 'bot@acme.test', '--token-env', 'ACME_TOKEN'])).toEqual({ exit: 0, message: '' })
  expect(await run(ConnectionsAdd, ['git', '--name', 'gitlab', '--host', 'gitlab.example.com:8443', '--token', GIT_TOKEN])).toEqual({ exit: 0, message: '' })
  const notion = await execa('node', ['bin/run.js', 'connections', 'add', 'notion', '--name', 'ws', '--token-stdin', '--data-dir', dataDir], { cwd: PROJECT_ROOT, input: `${NOTION_TOKEN}\n`, reject: false, env: { NO_COLOR: '1' } })
  expect(notion.exitCode, notion.stderr).toBe(0)
}, 60_000)

describe('lectern connections', () => {
  it('lists connections without their tokens', async () => {
    const list = await runCli(['connections', 'list', '--json', '--data-dir', dataDir])
    expect(list.exitCode, list.stderr).toBe(0)
    const connections = JSON.parse(list.stdout) as Array<Record<string, unknown>>
    expect(connections.map((c) => [c.name, c.kind, c.baseUrl])).toEqual([
      ['acme', 'confluence', 'https://acme.atlassian.net/wiki'],
      ['gitlab', 'git', 'https://gitlab.example.com:8443'],
      ['ws', 'notion', 'https://api.notion.com'],
    ])
    for (const connection of connections) expect(Object.keys(connection).sort()).toEqual(['baseUrl', 'createdAt', 'email', 'id', 'kind', 'name', 'publicKey', 'webhook'])
    for (const token of [CONFLUENCE_TOKEN, NOTION_TOKEN, GIT_TOKEN]) expect(list.stdout + list.stderr).not.toContain(token)
  })

  it('keeps tokens sealed in the database file', () => {
    const bytes = fs.readdirSync(dataDir).filter((f) => f.startsWith('lectern.db')).map((f) => fs.readFileSync(`${dataDir}/${f}`).toString('latin1')).join('')
    expect(bytes).toContain('acme.atlassian.net')
    for (const token of [CONFLUENCE_TOKEN, NOTION_TOKEN, GIT_TOKEN]) expect(bytes).not.toContain(token)
  })

  it('refuses bad input with the validation exit code', async () => {
    expect(await run(ConnectionsAdd, ['confluence', '--name', 'acme', '--site', 'https://x.atlassian.net', '--email', 'a@b', '--token', 't'])).toMatchObject({ exit: 2, message: expect.stringContaining('already exists') })
    expect(await run(ConnectionsAdd, ['confluence', '--name', 'cloud2', '--site', 'https://x.atlassian.net', '--token', 't'])).toMatchObject({ exit: 2, message: expect.stringContaining('--email') })
    expect(await run(ConnectionsAdd, ['notion', '--name', 'empty', '--token-env', 'UNSET_VAR_FOR_TEST'])).toMatchObject({ exit: 2 })
    expect(await run(AddConfluence, ['--connection', 'nope', '--space', 'DOCS'])).toMatchObject({ exit: 2, message: expect.stringContaining('No Confluence connection named "nope"') })
    expect(await run(AddNotion, ['--connection', 'acme', '--page', '1f2e3d4c5b6a47988a1f2e3d4c5b6a79'])).toMatchObject({ exit: 2, message: expect.stringContaining('No Notion connection named "acme"') })
  })

  it('refuses a plain http site in cloud mode, storing nothing, and takes it on-premise', async () => {
    const cloudDir = await tmpDataDir()
    const refused = await runCli(['connections', 'add', 'confluence', '--name', 'intranet', '--site', 'http://wiki.acme.test', '--token-env', 'ACME_TOKEN', '--data-dir', cloudDir], { LECTERN_MODE: 'cloud', ACME_TOKEN: CONFLUENCE_TOKEN })
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr.replace(/\s+/g, ' ')).toContain('A token is sent only over https: use the https:// URL of the Confluence site (wiki.acme.test).')
    expect(refused.stderr).not.toContain(CONFLUENCE_TOKEN)
    const store = await openStore(cloudDir)
    expect(await store.connections.list(INSTALL_CONNECTIONS)).toEqual([])
    await store.close()
    expect(await run(ConnectionsAdd, ['confluence', '--name', 'intranet', '--site', 'http://wiki.acme.test', '--token-env', 'ACME_TOKEN'])).toEqual({ exit: 0, message: '' })
  })

  it("sets a git connection's webhook secret (made and printed once, or read from stdin), refuses bad input and audits without the secret", async () => {
    const made = await runCli(['connections', 'webhook', 'gitlab', '--generate', '--json', '--data-dir', dataDir])
    expect(made.exitCode, made.stderr).toBe(0)
    const { connection, secret } = JSON.parse(made.stdout) as { connection: Record<string, unknown>; secret: string }
    expect(connection).toMatchObject({ name: 'gitlab', webhook: true })
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const listed = await runCli(['connections', 'list', '--data-dir', dataDir])
    expect(listed.stdout).toMatch(/gitlab\s+git\s+https:\/\/gitlab\.example\.com:8443\s+-\s+secret set/)
    expect(listed.stdout + listed.stderr).not.toContain(secret)

    const chosen = await execa('node', ['bin/run.js', 'connections', 'webhook', 'gitlab', '--secret-stdin', '--data-dir', dataDir], { cwd: PROJECT_ROOT, input: 'a-secret-chosen-by-the-operator\n', reject: false, env: { NO_COLOR: '1' } })
    expect(chosen.exitCode, chosen.stderr).toBe(0)
    expect(chosen.stdout).toBe('Stored the webhook secret of "gitlab" for https://gitlab.example.com:8443.')

    const refusals: Array<[string[], number, RegExp]> = [
      [['connections', 'webhook', 'nope', '--generate'], 4, /No connection named "nope"/],
      [['connections', 'webhook', 'acme', '--generate'], 2, /is a confluence connection; push webhooks come from git hosts/],
      [['connections', 'webhook', 'gitlab'], 2, /Say what to do: --generate/],
      [['connections', 'webhook', 'gitlab', '--generate', '--remove'], 2, /cannot also be provided when using --remove|--remove=true cannot also be provided/],
      [['connections', 'webhook', 'gitlab', '--secret-env', 'SHORT_SECRET'], 2, /at least 16 characters/],
    ]
    for (const [args, exit, message] of refusals) {
      const refused = await runCli([...args, '--data-dir', dataDir], { SHORT_SECRET: 'too-short' })
      expect(refused.exitCode, `${args.join(' ')}: ${refused.stderr}`).toBe(exit)
      expect(refused.stderr.replace(/\s+/g, ' ')).toMatch(message)
    }
    const store = await openStore(dataDir)
    try {
      expect(await store.connections.webhookSecret(INSTALL_CONNECTIONS, 'gitlab')).toBe('a-secret-chosen-by-the-operator')
      const events = await store.audit.list({ action: 'webhook.secret.changed' }, { limit: 10 })
      expect(events.map((e) => [e.actor.kind, e.target, e.details.webhookSecret])).toEqual([
        ['cli', 'connection gitlab', 'set'],
        ['cli', 'connection gitlab', 'generated'],
      ])
      expect(JSON.stringify(events)).not.toContain(secret)
      expect(JSON.stringify(events)).not.toContain('a-secret-chosen')
    } finally {
      await store.close()
    }
    const removed = await runCli(['connections', 'webhook', 'gitlab', '--remove', '--data-dir', dataDir])
    expect(removed.stdout).toContain('push deliveries from https://gitlab.example.com:8443 are refused from now on')
  })

  it('stores an SSH git connection from key and known hosts files through the binary, and refuses it without known hosts or with a key it cannot read', async () => {
    const dir = await tmpDir()
    const key = path.join(dir, 'deploy_key')
    await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'lectern-deploy', '-f', key])
    await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'a passphrase', '-f', path.join(dir, 'locked_key')])
    const hostKey = fs.readFileSync(`${key}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')
    fs.writeFileSync(path.join(dir, 'known_hosts'), `# from ssh-keyscan\ngit.acme.internal ${hostKey}\n`)
    const add = (...args: string[]) => runCli(['connections', 'add', 'git', '--name', 'internal-ssh', '--host', 'ssh://git.acme.internal', ...args, '--data-dir', dataDir])

    const refusals: Array<[string[], RegExp]> = [
      [['--ssh-key-file', key], /needs the host keys to trust: --known-hosts-file/],
      [['--token', 'abc', '--known-hosts-file', path.join(dir, 'known_hosts')], /takes its deploy key with --ssh-key-file, not a token/],
      [['--known-hosts-file', path.join(dir, 'known_hosts')], /needs its deploy key: --ssh-key-file/],
      [['--ssh-key-file', path.join(dir, 'missing'), '--known-hosts-file', path.join(dir, 'known_hosts')], /--ssh-key-file: cannot read .*missing \(ENOENT\)/],
      [['--ssh-key-file', path.join(dir, 'locked_key'), '--known-hosts-file', path.join(dir, 'known_hosts')], /not an unencrypted private key/],
    ]
    for (const [args, message] of refusals) {
      const refused = await add(...args)
      expect(refused.exitCode, refused.stderr).toBe(2)
      expect(refused.stderr.replace(/\s+/g, ' ')).toMatch(message)
    }
    for (const [args, message] of [
      [['connections', 'add', 'git', '--name', 'x', '--host', 'git.acme.internal', '--token', 't', '--known-hosts-file', path.join(dir, 'known_hosts')], /give the host as --host ssh:\/\/host/],
      [['connections', 'add', 'notion', '--name', 'x', '--ssh-key-file', key], /are for git connections over SSH only/],
      [['connections', 'add', 'git', '--name', 'x', '--host', 'https://git.acme.internal/group', '--token', 't'], /is not a git host: write host, host:port/],
      [['connections', 'add', 'git', '--name', 'x', '--host', 'gitlab.example.com:8443', '--token', 't'], /Connection "gitlab" already serves https:\/\/gitlab.example.com:8443/],
    ] as const) {
      const refused = await runCli([...args, '--data-dir', dataDir])
      expect(refused.exitCode, refused.stderr).toBe(2)
      expect(refused.stderr.replace(/\s+/g, ' ')).toMatch(message)
    }
    const stored = await add('--ssh-key-file', key, '--known-hosts-file', path.join(dir, 'known_hosts'), '--json')
    expect(stored.exitCode, stored.stderr).toBe(0)
    expect(JSON.parse(stored.stdout)).toMatchObject({ name: 'internal-ssh', baseUrl: 'ssh://git.acme.internal', publicKey: fs.readFileSync(`${key}.pub`, 'utf8').trim() })
    expect(stored.stdout + stored.stderr).not.toContain('PRIVATE KEY')
    const store = await openStore(dataDir)
    try {
      expect((await store.connections.forGitHost(INSTALL_CONNECTIONS, 'git.acme.internal:22', 'ssh'))?.name).toBe('internal-ssh')
      expect(await store.connections.forGitHost(INSTALL_CONNECTIONS, 'git.acme.internal')).toBeUndefined()
      expect((await store.connections.sshIdentity(INSTALL_CONNECTIONS, 'internal-ssh')).knownHosts).toBe(`git.acme.internal ${hostKey}\n`)
    } finally {
      await store.close()
    }
    expect(await run(ConnectionsRemove, ['internal-ssh'])).toEqual({ exit: 0, message: '' })
  })

  it('removes a connection', async () => {
    expect(await run(ConnectionsRemove, ['ws'])).toEqual({ exit: 0, message: '' })
    expect(await run(ConnectionsRemove, ['ws'])).toMatchObject({ exit: 4 })
    const store = await openStore(dataDir)
    expect((await store.connections.list(INSTALL_CONNECTIONS)).map((c) => c.name)).toEqual(['acme', 'gitlab', 'intranet'])
    await store.close()
  })

  it('audits every connection stored and removed, by the system user, with kind and address and never a token or key; refusals store and record nothing', async () => {
    const store = await openStore(dataDir)
    try {
      const events = (await store.audit.list({ action: 'connection' }, { limit: 20 })).reverse()
      expect(events.map((e) => [e.action, e.actor.kind, e.target, e.details.kind, e.details.baseUrl])).toEqual([
        ['connection.added', 'cli', 'connection acme', 'confluence', 'https://acme.atlassian.net/wiki'],
        ['connection.added', 'cli', 'connection gitlab', 'git', 'https://gitlab.example.com:8443'],
        ['connection.added', 'cli', 'connection ws', 'notion', 'https://api.notion.com'],
        ['connection.added', 'cli', 'connection intranet', 'confluence', 'http://wiki.acme.test'],
        ['connection.added', 'cli', 'connection internal-ssh', 'git', 'ssh://git.acme.internal'],
        ['connection.removed', 'cli', 'connection internal-ssh', 'git', 'ssh://git.acme.internal'],
        ['connection.removed', 'cli', 'connection ws', 'notion', 'https://api.notion.com'],
      ])
      for (const event of events) expect(event.actor.name).toBeTruthy()
      const text = JSON.stringify(events)
      for (const secret of [CONFLUENCE_TOKEN, NOTION_TOKEN, GIT_TOKEN, 'PRIVATE KEY']) expect(text).not.toContain(secret)
    } finally {
      await store.close()
    }
  })
})

describe('git job token', () => {
  // Lookup only: a private git HTTP server with auth is out of scope here; cloneRepo's token path is tested in git.test.ts.
  it('uses the job token first, else the git connection of the repository host', async () => {
    const store = await openStore(await tmpDataDir())
    try {
      await store.connections.create(INSTALL_CONNECTIONS, { kind: 'git', name: 'corp', baseUrl: 'https://git.corp.test', token: 'corp-token' })
      await store.connections.create(INSTALL_CONNECTIONS, { kind: 'confluence', name: 'wiki', baseUrl: 'https://wiki.corp.test', token: 'wiki-token' })
      expect(await gitToken(store, undefined, 'git.corp.test', INSTALL_CONNECTIONS)).toBe('corp-token')
      expect(await gitToken(store, undefined, 'GIT.CORP.TEST', INSTALL_CONNECTIONS)).toBe('corp-token')
      expect(await gitToken(store, 'job-token', 'git.corp.test', INSTALL_CONNECTIONS)).toBe('job-token')
      expect(await gitToken(store, undefined, 'git.corp.test:8443', INSTALL_CONNECTIONS)).toBeUndefined()
      expect(await gitToken(store, undefined, 'wiki.corp.test', INSTALL_CONNECTIONS)).toBeUndefined()
      expect(await gitToken(store, undefined, 'github.com', INSTALL_CONNECTIONS)).toBeUndefined()
      // A library that reads through no connections gets no stored token, even for a known host.
      expect(await gitToken(store, undefined, 'git.corp.test', undefined)).toBeUndefined()
    } finally {
      await store.close()
    }
  })
})
