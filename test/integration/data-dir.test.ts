/**
 * The data directory as a person meets it: only serve and restore create one (any other command
 * on a wrong --data-dir is refused, exit 4, saying where it looked, nothing written); the default
 * is the same from every folder, and `lectern status` says what a command sees; oclif
 * never reads anything of its own from it although LECTERN_DATA_DIR is also oclif's
 * <BIN>_DATA_DIR; and the license public key set with `config set license.publicKeyFile`, a
 * path relative to where that command ran, is the one every process uses afterwards.
 */
import { generateKeyPairSync } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, chown, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { execa } from 'execa'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { offlineLicense } from '../airgap/helpers.js'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { freePort, GRACEFUL_STOP } from '../helpers/server.js'
import { tmpDataDir, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 600_000 })

/**
 * Every command but serve and restore, with arguments that pass its parser: none of them may
 * create a data directory. The files they name are in `files` (test below).
 */
const COMMANDS: Record<string, string[]> = {
  add: ['add', 'https://github.com/acme/widgets'],
  'add:confluence': ['add', 'confluence', '--connection', 'acme', '--space', 'DOCS'],
  'add:llmstxt': ['add', 'llmstxt', 'https://docs.example.com/llms.txt'],
  'add:notion': ['add', 'notion', '--connection', 'ws', '--page', '1f2e3d4c5b6a79881f2e3d4c5b6a7988'],
  'add:openapi': ['add', 'openapi', 'FILES/spec.yaml'],
  'add:website': ['add', 'website', 'https://docs.example.com/'],
  'admin:create': ['admin', 'create', 'ops@example.com'],
  audit: ['audit'],
  backup: ['backup'],
  'backup:config:set': ['backup', 'config', 'set', '--keep', '3'],
  'backup:config:show': ['backup', 'config', 'show'],
  'backup:list': ['backup', 'list'],
  'backup:status': ['backup', 'status'],
  'config:get': ['config', 'get'],
  'config:reembed': ['config', 'reembed'],
  'config:set': ['config', 'set', 'mcp.requireKey', 'true'],
  'connections:add': ['connections', 'add', 'notion', '--name', 'ws', '--token-env', 'NOTION_TOKEN'],
  'connections:list': ['connections', 'list'],
  'connections:remove': ['connections', 'remove', 'acme'],
  'connections:webhook': ['connections', 'webhook', 'gitlab', '--remove'],
  docs: ['docs', '/acme/widgets', 'install'],
  eval: ['eval', 'FILES/questions.json'],
  'gitops:config': ['gitops', 'config', '--prune'],
  'gitops:status': ['gitops', 'status'],
  'gitops:sync': ['gitops', 'sync'],
  export: ['export', '/acme/widgets', '--mode', 'cloud', '-o', 'FILES/never-written.zip'],
  import: ['import', 'FILES/bundle.json'],
  inspect: ['inspect', '/acme/widgets'],
  jobs: ['jobs'],
  'jobs:cancel': ['jobs', 'cancel', '4'],
  'keys:create': ['keys', 'create', '--name', 'ci'],
  'keys:list': ['keys', 'list'],
  'keys:revoke': ['keys', 'revoke', '1'],
  'libraries:access': ['libraries', 'access', '/acme/widgets', '--everyone'],
  'libraries:list': ['libraries', 'list'],
  'libraries:remove': ['libraries', 'remove', '/acme/widgets', '--yes'],
  'libraries:rename': ['libraries', 'rename', '/acme/widgets', '/acme/gadgets'],
  'license:install': ['license', 'install', 'FILES/license.json'],
  'license:issue': ['license', 'issue', '--public-key', '--mode', 'cloud'],
  'license:show': ['license', 'show'],
  mcp: ['mcp'],
  'migrate-store': ['migrate-store', '--to', 'postgres://lectern@127.0.0.1:9/lectern'],
  refresh: ['refresh', '/acme/widgets'],
  search: ['search', 'widgets'],
  status: ['status'],
  'teams:add-member': ['teams', 'add-member', 'Acme', 'bob@example.com', '--role', 'developer'],
  'teams:create': ['teams', 'create', 'Acme', '--owner', 'alice@example.com'],
  'teams:delete': ['teams', 'delete', 'Acme', '--yes'],
  'teams:invitations': ['teams', 'invitations', 'Acme'],
  'teams:list': ['teams', 'list'],
  'teams:members': ['teams', 'members', 'Acme'],
  'teams:plan:set': ['teams', 'plan', 'set', 'Acme', 'pro'],
  'teams:remove-member': ['teams', 'remove-member', 'Acme', 'bob@example.com'],
  'users:create': ['users', 'create', 'dana@example.com'],
  'users:list': ['users', 'list'],
  'versions:add': ['versions', 'add', '/acme/widgets', 'v2.0.0'],
  'versions:list': ['versions', 'list', '/acme/widgets'],
  'versions:remove': ['versions', 'remove', '/acme/widgets', 'v2.0.0', '--yes'],
}
/** The commands that create a data directory: the server, and a restore into an empty one. */
const CREATORS = ['serve', 'restore']

describe('a directory without Lectern data', () => {
  it('is created by serve and restore only: every other command refuses it with exit 4, saying where it looked, and creates nothing', async () => {
    const { commands } = JSON.parse(await readFile(path.join(PROJECT_ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, unknown> }
    expect(Object.keys(COMMANDS).sort()).toEqual(Object.keys(commands).filter((id) => !CREATORS.includes(id)).sort())

    const files = await tmpDir()
    await writeFile(path.join(files, 'spec.yaml'), 'openapi: 3.0.0\ninfo: {title: T, version: "1"}\npaths: {}\n')
    await writeFile(path.join(files, 'questions.json'), JSON.stringify([{ library: '/acme/widgets', question: 'install', relevant: { 'README.md': 2 } }]))
    await writeFile(path.join(files, 'bundle.json'), JSON.stringify({ libraries: [{ project: '/acme/one', codeSnippets: [], infoSnippets: [{ content: 'One.' }] }] }))
    await writeFile(path.join(files, 'license.json'), '{}')
    const parent = await tmpDir()
    const empty = path.join(parent, 'empty')
    await mkdir(empty)
    const missing = path.join(parent, 'missing')
    // Every command on an empty directory, a few on one that does not exist; three processes at a time.
    const withFiles = (args: string[]) => args.map((arg) => arg.replace(/^FILES\//, `${files}/`))
    const runs = [
      ...Object.entries(COMMANDS).map(([id, args]) => ({ args: withFiles(args), dataDir: empty, mode: id.startsWith('teams:') ? 'cloud' : '' })),
      ...[COMMANDS['keys:create'], COMMANDS.add, COMMANDS.status].map((args) => ({ args: withFiles(args), dataDir: missing, mode: '' })),
    ]
    for (let i = 0; i < runs.length; i += 3) {
      await Promise.all(
        runs.slice(i, i + 3).map(async ({ args, dataDir, mode }) => {
          // The teamspace commands are the cloud's (they refuse an on-premise install first).
          const result = await runCli([...args, '--data-dir', dataDir], { NOTION_TOKEN: 'secret_x', LECTERN_MODE: mode }, { cwd: parent, input: 'a long enough password\n' })
          expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(4)
          expect(result.stderr, args.join(' ')).toBe(
            `Error: No Lectern data in ${dataDir} (named by --data-dir): it has no lectern.db. Point the command at your install's data directory with --data-dir, LECTERN_DATA_DIR or dataDir in lectern.yaml, or start \`lectern serve\` to create a new install there. (data_dir_empty)`,
          )
        }),
      )
    }
    expect(await readdir(empty)).toEqual([])
    expect(existsSync(missing)).toBe(false)
    expect((await readdir(parent)).sort()).toEqual(['empty'])
    expect((await readdir(files)).sort()).toEqual(['bundle.json', 'license.json', 'questions.json', 'spec.yaml'])
  })

  it('refuses with {"error": "data_dir_empty"} under --json, with where it looked and why', async () => {
    const dir = await tmpDir()
    for (const command of [['keys', 'list'], ['status']]) {
      const result = await runCli([...command, '--json', '--data-dir', dir])
      expect(result.exitCode).toBe(4)
      expect(JSON.parse(result.stdout)).toEqual({ error: 'data_dir_empty', message: expect.stringContaining('No Lectern data in'), dataDir: dir, dataDirOrigin: 'named by --data-dir', configFile: null })
    }
    // From $XDG_DATA_HOME, the default says so.
    const xdg = await runCli(['status', '--json'], { HOME: dir, XDG_DATA_HOME: path.join(dir, 'xdg') }, { cwd: dir })
    expect(JSON.parse(xdg.stdout)).toMatchObject({ dataDir: path.join(dir, 'xdg', 'lectern'), dataDirOrigin: 'the default, $XDG_DATA_HOME/lectern, as /var/lib/lectern does not exist' })
  })

  it('names the variable or the file that chose the directory', async () => {
    const dir = await tmpDir()
    const fromEnv = await runCli(['keys', 'create', '--name', 'ci'], { LECTERN_DATA_DIR: path.join(dir, 'env') })
    expect(fromEnv.stderr).toContain(`No Lectern data in ${path.join(dir, 'env')} (named by LECTERN_DATA_DIR)`)
    await writeFile(path.join(dir, 'lectern.yaml'), 'dataDir: ./from-file\n')
    const fromFile = await runCli(['keys', 'create', '--name', 'ci'], {}, { cwd: dir })
    expect(fromFile.stderr).toContain(`No Lectern data in ${path.join(dir, 'from-file')} (named by dataDir in ${path.join(dir, 'lectern.yaml')})`)
  })
})

describe('a data directory serve cannot create', () => {
  it('is refused with the reason and the path that failed, exit 2, not as an internal error', async () => {
    const dir = await tmpDir()
    const file = path.join(dir, 'a-file')
    await writeFile(file, '')
    const onFile = await runCli(['serve', '--data-dir', file, '--port', '0'])
    expect(onFile.exitCode).toBe(2)
    expect(onFile.stderr).toBe(`Error: Cannot create the data directory ${file} (named by --data-dir): a file is in the way (ENOTDIR at ${file}). Choose another data directory, or create it with the right owner first. (validation_error)`)
    const under = await runCli(['serve', '--data-dir', path.join(file, 'data'), '--port', '0'])
    expect(under.exitCode).toBe(2)
    expect(under.stderr).toContain(`(ENOTDIR at ${path.join(file, 'data')})`)
  })
})

describe('a data directory another user keeps to themselves', () => {
  it('is refused as forbidden, exit 3, naming the sudo -u line, not as empty', async () => {
    // The package's /var/lib/lectern: mode 0700, its service user's (here nobody's). The command runs
    // in a user namespace of its own, as a user who is neither its owner nor able to override its
    // mode, and who can still read the program wherever the checkout is.
    const dataDir = await tmpDataDir()
    await chown(dataDir, 65534, 65534)
    await chmod(dataDir, 0o700)
    const outsider = await execa('unshare', ['--user', '--', 'node', path.join(PROJECT_ROOT, 'bin/run.js'), 'keys', 'list', '--data-dir', dataDir], { reject: false, env: { NO_COLOR: '1' } })
    expect(outsider.exitCode, outsider.stderr).toBe(3)
    expect(outsider.stderr).toBe(`Error: ${dataDir} is not readable by you: run this command as the user nobody (sudo -u nobody lectern keys list ...). (forbidden)`)
  })
})

describe('the default data directory', () => {
  it('is the same from every folder: a key made elsewhere is accepted by the server, and status sees that server', async () => {
    const home = await tmpDir()
    // No --data-dir, no LECTERN_DATA_DIR, no lectern.yaml: the default of this $HOME.
    const env = { HOME: home, LECTERN_DATA_DIR: '', XDG_DATA_HOME: '' }
    const [serverFolder, otherFolder] = await Promise.all([tmpDir(), tmpDir()])
    const expected = path.join(home, '.local', 'share', 'lectern')

    const before = await runCli(['keys', 'create', '--name', 'ci'], env, { cwd: otherFolder })
    expect(before.exitCode).toBe(4)
    expect(before.stderr).toContain(`No Lectern data in ${expected} (the default, as /var/lib/lectern does not exist)`)
    expect(existsSync(expected)).toBe(false)

    const port = await freePort()
    const server = execa('node', [path.join(PROJECT_ROOT, 'bin/run.js'), 'serve', '--port', String(port), '--workers', '1', '--log-format', 'json'], {
      cwd: serverFolder,
      env,
      reject: false,
      ...GRACEFUL_STOP,
      stdin: 'ignore',
    })
    onTestFinished(async () => {
      server.kill('SIGTERM')
      await server
    })
    const url = `http://127.0.0.1:${port}`
    await pollUntil('the server', async () => ((await fetch(`${url}/api/ready`).catch(() => undefined))?.ok ? true : undefined), 60_000)

    const created = await runCli(['keys', 'create', '--name', 'ci', '--json'], env, { cwd: otherFolder })
    expect(created.exitCode, created.stderr).toBe(0)
    const { key } = JSON.parse(created.stdout) as { key: string }
    const asked = await fetch(`${url}/api/v2/libs/search?libraryName=nothing`, { headers: { authorization: `Bearer ${key}` } })
    expect(asked.status).toBe(404)

    const status = await runCli(['status', '--json'], env, { cwd: otherFolder })
    expect(status.exitCode, status.stderr).toBe(0)
    expect(JSON.parse(status.stdout)).toMatchObject({
      dataDir: expected,
      dataDirOrigin: 'the default, as /var/lib/lectern does not exist',
      configFile: null,
      database: { kind: 'sqlite', where: path.join(expected, 'lectern.db') },
      mode: 'onprem',
      modeSource: 'data-dir',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      schema: expect.stringMatching(/^\d{4}_/),
      server: { running: true, pid: server.pid, url, ready: true },
      libraries: 0,
      jobs: { running: 0, queued: 0 },
    })
    const text = await runCli(['status'], env, { cwd: otherFolder })
    expect(text.stdout).toContain(`Data directory:  ${expected} (the default, as /var/lib/lectern does not exist)`)
    expect(text.stdout).toContain(`Database:        SQLite, ${path.join(expected, 'lectern.db')}`)
    expect(text.stdout).toMatch(new RegExp(`Server: +${url}, ready \\(process ${server.pid} on `))

    server.kill('SIGTERM')
    const ended = await server
    expect(ended.exitCode, ended.stderr).toBe(0)
    // The first start said it created the install, and where.
    expect(ended.stdout).toContain(`No Lectern data in ${expected} yet: creating a new install there (the default, as /var/lib/lectern does not exist)`)
    const stopped = await runCli(['status', '--json'], env, { cwd: otherFolder })
    expect(JSON.parse(stopped.stdout).server).toEqual({ running: false })
  })
})

describe('LECTERN_DATA_DIR, which oclif also reads as its own data directory', () => {
  it('never makes oclif load plugins from a package.json in the data directory', async () => {
    const dataDir = await tmpDataDir()
    expect((await runCli(['keys', 'create', '--name', 'ci'], { LECTERN_DATA_DIR: dataDir })).exitCode).toBe(0)
    // What oclif's user and linked plugins look like (`plugins install`, `plugins link`): a package.json naming a plugin
    // beside it, whose init hook would run before any command (it does with oclif's default userPlugins).
    const marker = path.join(dataDir, 'plugin-ran')
    const plugin = path.join(dataDir, 'node_modules', 'lectern-evil-plugin')
    await mkdir(plugin, { recursive: true })
    await writeFile(path.join(plugin, 'package.json'), JSON.stringify({ name: 'lectern-evil-plugin', version: '1.0.0', type: 'module', oclif: { hooks: { init: './hook.js' } } }))
    await writeFile(path.join(plugin, 'hook.js'), `import fs from 'node:fs'\nexport default async function () { fs.writeFileSync(${JSON.stringify(marker)}, 'ran') }\n`)
    const plugins = [{ type: 'user', name: 'lectern-evil-plugin' }, { type: 'link', name: 'lectern-evil-plugin', root: plugin }]
    await writeFile(path.join(dataDir, 'package.json'), JSON.stringify({ private: true, oclif: { schema: 1, plugins }, dependencies: { 'lectern-evil-plugin': '1.0.0' } }))

    const listed = await runCli(['keys', 'list', '--json'], { LECTERN_DATA_DIR: dataDir })
    expect(listed.exitCode, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: 'ci' })])
    expect(listed.stderr).not.toMatch(/plugin/i)
    expect(existsSync(marker)).toBe(false)
  })
})

describe('the license public key from `config set license.publicKeyFile`', () => {
  it('is honoured by license show and by a server started elsewhere, which then accepts an import', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519')
    const dataDir = await tmpDataDir()
    const setupDir = await tmpDir()
    await writeFile(path.join(setupDir, 'issuer.pem'), publicKey.export({ type: 'spki', format: 'pem' }).toString())
    await writeFile(path.join(setupDir, 'acme.license.json'), JSON.stringify(offlineLicense(privateKey)))
    const key = (await runCli(['keys', 'create', '--name', 'import', '--data-dir', dataDir])).stdout.trim()

    // A relative path, from the directory holding the key: stored as the key's text and its absolute path.
    const set = await runCli(['config', 'set', 'license.publicKeyFile', './issuer.pem', '--data-dir', dataDir], {}, { cwd: setupDir })
    expect(set.exitCode, set.stderr).toBe(0)
    const installed = await runCli(['license', 'install', './acme.license.json', '--data-dir', dataDir], {}, { cwd: setupDir })
    expect(installed.exitCode, installed.stderr).toBe(0)

    const elsewhere = await tmpDir()
    const shown = await runCli(['license', 'show', '--json', '--data-dir', dataDir], {}, { cwd: elsewhere })
    expect(JSON.parse(shown.stdout)).toMatchObject({ state: 'valid', license: { customer: 'Acme Corp', offline: true } })
    const setting = await runCli(['config', 'get', 'license.publicKeyFile', '--json', '--data-dir', dataDir], {}, { cwd: elsewhere })
    expect(JSON.parse(setting.stdout)).toEqual([expect.objectContaining({ value: path.join(setupDir, 'issuer.pem'), source: 'stored' })])

    const port = await freePort()
    const server = execa('node', [path.join(PROJECT_ROOT, 'bin/run.js'), 'serve', '--data-dir', dataDir, '--port', String(port), '--log-level', 'warn'], { cwd: elsewhere, reject: false, stdin: 'ignore', ...GRACEFUL_STOP })
    onTestFinished(async () => {
      server.kill('SIGTERM')
      await server
    })
    const url = `http://127.0.0.1:${port}`
    await pollUntil('the server', async () => ((await fetch(`${url}/api/ready`).catch(() => undefined))?.ok ? true : undefined), 60_000)
    await writeFile(path.join(elsewhere, 'one.json'), JSON.stringify({ libraries: [{ project: '/acme/one', codeSnippets: [], infoSnippets: [{ content: 'One is a library.' }] }] }))
    const imported = await runCli(['import', 'one.json', '--url', url, '--key', key, '--json'], {}, { cwd: elsewhere })
    expect(imported.exitCode, imported.stderr).toBe(0)
    expect(JSON.parse(imported.stdout)).toMatchObject({ queued: ['/acme/one'], failed: [] })
  })
})
