/**
 * oclif.manifest.json, written by `npm run build`, is how the binary lists its commands and finds
 * them without importing them all. A manifest that lags the commands would hide a new command or
 * show old help, so it must hold exactly the commands of commands/ as they are built now; and a
 * command built after the manifest was written is reported as a stale build, not as unknown.
 */
import { copyFile, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { Plugin, type Interfaces } from '@oclif/core'
import { execa } from 'execa'
import { describe, expect, it, vi } from 'vitest'
import { ERROR_CODES } from '../../src/errors.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 60_000 })

const STALE = 'run `npm run build` to write the manifest again'

async function readManifest(root = PROJECT_ROOT): Promise<Interfaces.Manifest> {
  return JSON.parse(await readFile(path.join(root, 'oclif.manifest.json'), 'utf8')) as Interfaces.Manifest
}

/** Command ids from the source files: commands/keys/list.ts is `keys:list`, commands/backup/index.ts is `backup`. */
async function sourceCommandIds(): Promise<string[]> {
  const dir = path.join(PROJECT_ROOT, 'commands')
  const files = (await readdir(dir, { recursive: true })).filter((file) => file.endsWith('.ts'))
  return files.map((file) => file.replace(/\.ts$/, '').split(path.sep).filter((part) => part !== 'index').join(':')).sort()
}

describe('oclif.manifest.json', () => {
  it('lists exactly the commands of the commands directory', async () => {
    const manifest = await readManifest()
    expect(Object.keys(manifest.commands).sort(), `stale manifest: ${STALE}`).toEqual(await sourceCommandIds())
  })

  it('holds what each built command declares now: its examples, summary, flags and arguments', async () => {
    // What `npm run build` computes from dist/commands, computed again here.
    const plugin = new Plugin({ root: PROJECT_ROOT, isRoot: true, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true })
    await plugin.load()
    const fresh = JSON.parse(JSON.stringify(plugin.manifest)) as Interfaces.Manifest
    const manifest = await readManifest()
    for (const [id, command] of Object.entries(fresh.commands)) {
      expect(manifest.commands[id]?.examples, `examples of ${id}; ${STALE}`).toEqual(command.examples)
    }
    expect(manifest, STALE).toEqual(fresh)
  })

  it('a command missing from an older manifest is said to be a stale build; an unknown one is still unknown', async () => {
    // An install whose manifest was written before `keys list` was built: the project's own
    // package.json, bin/ and dist/, with a manifest that lacks it.
    const root = await tmpDir('lectern-stale-manifest-')
    await mkdir(path.join(root, 'bin'))
    await copyFile(path.join(PROJECT_ROOT, 'bin', 'run.js'), path.join(root, 'bin', 'run.js'))
    await copyFile(path.join(PROJECT_ROOT, 'package.json'), path.join(root, 'package.json'))
    await symlink(path.join(PROJECT_ROOT, 'dist'), path.join(root, 'dist'))
    await symlink(path.join(PROJECT_ROOT, 'node_modules'), path.join(root, 'node_modules'))
    const manifest = await readManifest()
    delete manifest.commands['keys:list']
    await writeFile(path.join(root, 'oclif.manifest.json'), JSON.stringify(manifest))
    const run = (args: string[]) => execa('node', [path.join(root, 'bin', 'run.js'), ...args], { cwd: root, env: { NO_COLOR: '1' }, reject: false, stdin: 'ignore' })

    const [text, json, unknown] = await Promise.all([run(['keys', 'list']), run(['keys', 'list', '--json']), run(['keys', 'nosuch', '--json'])])
    expect(text.exitCode).toBe(ERROR_CODES.internal_error.exit)
    expect(text.stderr.replace(/\s+›?\s*/g, ' ')).toContain(`"keys list" is built but missing from oclif.manifest.json, which predates it: ${STALE}.`)
    expect(json.exitCode).toBe(ERROR_CODES.internal_error.exit)
    expect(JSON.parse(json.stdout)).toEqual({ error: 'internal_error', message: expect.stringContaining(STALE) })
    expect(unknown.exitCode).toBe(ERROR_CODES.validation_error.exit)
    expect(JSON.parse(unknown.stdout)).toEqual({ error: 'validation_error', message: 'Unknown command "keys nosuch": `lectern --help` lists the commands.' })
  })
})
