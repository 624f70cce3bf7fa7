/**
 * The data directory as a person meets it: a command that only reads never creates one (a wrong
 * --data-dir is refused, exit 4, nothing written), a command that creates one says so; oclif
 * never reads anything of its own from it although LECTERN_DATA_DIR is also oclif's
 * <BIN>_DATA_DIR; and the license public key set with `config set license.publicKeyFile`, a
 * path relative to where that command ran, is the one every process uses afterwards.
 */
import { generateKeyPairSync } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { execa } from 'execa'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { offlineLicense } from '../airgap/helpers.js'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { freePort } from '../helpers/server.js'
import { tmpDataDir, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 600_000 })

/** Every command that only reads, with arguments that would pass its parser. */
const READ_ONLY: string[][] = [
  ['keys', 'list'],
  ['keys', 'revoke', '1'],
  ['libraries', 'list'],
  ['libraries', 'rename', '/acme/widgets', '/acme/gadgets'],
  ['libraries', 'remove', '/acme/widgets', '--yes'],
  ['search', 'widgets'],
  ['docs', '/acme/widgets', 'install'],
  ['versions', 'list', '/acme/widgets'],
  ['versions', 'add', '/acme/widgets', 'v2.0.0'],
  ['refresh', '/acme/widgets'],
  ['jobs'],
  ['mcp'],
  ['backup'],
  ['backup', 'list'],
  ['backup', 'config', 'show'],
  ['config', 'get'],
  ['config', 'reembed'],
  ['connections', 'list'],
  ['connections', 'remove', 'acme'],
  ['license', 'show'],
  ['export', '/acme/widgets', '--mode', 'cloud', '-o', 'never-written.zip'],
]

describe('a directory without Lectern data', () => {
  it('is refused by every read-only command with exit 4, and nothing is created', async () => {
    const parent = await tmpDir()
    const empty = path.join(parent, 'empty')
    await mkdir(empty)
    const missing = path.join(parent, 'missing')
    // Every command on an empty directory, a few on one that does not exist; three processes at a time.
    const runs = [...READ_ONLY.map((args) => ({ args, dataDir: empty })), ...READ_ONLY.slice(0, 3).map((args) => ({ args, dataDir: missing }))]
    for (let i = 0; i < runs.length; i += 3) {
      await Promise.all(
        runs.slice(i, i + 3).map(async ({ args, dataDir }) => {
          const result = await runCli([...args, '--data-dir', dataDir], {}, { cwd: parent })
          expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(4)
          expect(result.stderr.replace(/\s+/g, ' '), args.join(' ')).toContain(`${dataDir} holds no Lectern data (no lectern.db)`)
        }),
      )
    }
    expect(await readdir(empty)).toEqual([])
    expect(existsSync(missing)).toBe(false)
    expect((await readdir(parent)).sort()).toEqual(['empty'])
  })

  it('refuses with {"error": "data_dir_empty"} under --json', async () => {
    const result = await runCli(['keys', 'list', '--json', '--data-dir', await tmpDataDir()])
    expect(result.exitCode).toBe(4)
    expect(JSON.parse(result.stdout)).toEqual({ error: 'data_dir_empty', message: expect.stringContaining('holds no Lectern data') })
  })

  it('is created by a command that writes, which says so on stderr (once)', async () => {
    const dataDir = path.join(await tmpDir(), 'new')
    const first = await runCli(['keys', 'create', '--name', 'ci', '--data-dir', dataDir])
    expect(first.exitCode).toBe(0)
    expect(first.stderr).toContain(`Creating a new Lectern data directory at ${dataDir}`)
    expect(existsSync(path.join(dataDir, 'lectern.db'))).toBe(true)
    const second = await runCli(['keys', 'create', '--name', 'cd', '--data-dir', dataDir])
    expect(second.stderr).not.toContain('Creating a new Lectern data directory')
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
    const server = execa('node', [path.join(PROJECT_ROOT, 'bin/run.js'), 'serve', '--data-dir', dataDir, '--port', String(port), '--log-level', 'warn'], { cwd: elsewhere, reject: false, stdin: 'ignore' })
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
