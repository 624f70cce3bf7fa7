/**
 * The README's Configuration section is the settings catalogue for people: every start-up
 * setting (src/config.ts) with its flag, environment variable, lectern.yaml key, default and
 * meaning, and every stored setting `lectern config get` shows. A setting added, renamed or
 * re-defaulted in the code without the README fails here.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { readConfigFile, STARTUP_SETTINGS } from '../../src/config.js'
import { runCli } from '../helpers/cli.js'
import { codeBlocks, readmeSection, tableRows } from '../helpers/readme.js'
import { tmpDataDir, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 120_000 })

const section = readmeSection('Configuration')
const code = (text: string) => `\`${text}\``

describe('README configuration', () => {
  it('lists every start-up setting once, with the flag, environment variable, default and meaning of the catalogue', () => {
    const rows = tableRows(section, 'Setting (`lectern.yaml` key)')
    expect(rows.map((r) => r[0])).toEqual(STARTUP_SETTINGS.map((s) => code(s.key)))
    for (const s of STARTUP_SETTINGS) {
      expect(rows.find((r) => r[0] === code(s.key)), s.key).toEqual([
        code(s.key),
        s.flag ? code(`--${s.flag}`) : '',
        s.env ? code(s.env) : '',
        s.hostDefault ? String(s.default) : code(JSON.stringify(s.default)),
        s.description,
      ])
    }
  })

  it('lists every stored setting that `lectern config get` shows, with its meaning and default', async () => {
    const dataDir = await tmpDataDir()
    expect((await runCli(['keys', 'create', '--name', 'x', '--data-dir', dataDir])).exitCode).toBe(0)
    const shown = JSON.parse((await runCli(['config', 'get', '--json', '--data-dir', dataDir])).stdout) as Array<{ name: string; value: unknown; description: string }>
    const startup = new Set(STARTUP_SETTINGS.map((s) => s.key))
    const stored = shown.filter((r) => !startup.has(r.name))
    const rows = tableRows(section, 'Setting | Default')
    expect(rows.map((r) => r[0])).toEqual(stored.map((r) => code(r.name)))
    for (const setting of stored) {
      const [, defaultCell, meaning] = rows.find((r) => r[0] === code(setting.name))!
      expect(meaning, setting.name).toBe(setting.description)
      // A default that is a plain value is shown as JSON; the backup default (paths of the data directory) in words.
      if (setting.name !== 'backup') expect(defaultCell, setting.name).toBe(code(JSON.stringify(setting.value)))
    }
  })

  it('gives an example lectern.yaml that Lectern accepts, and that config get reads back', async () => {
    const [example] = codeBlocks('yaml', section)
    expect(example).toBeDefined()
    const dir = await tmpDir()
    const file = path.join(dir, 'lectern.yaml')
    await writeFile(file, example)
    expect(() => readConfigFile(file)).not.toThrow()
    const values = readConfigFile(file) as { server: { port: number } }
    const dataDir = await tmpDataDir()
    await runCli(['keys', 'create', '--name', 'x', '--data-dir', dataDir])
    const shown = JSON.parse((await runCli(['config', 'get', 'server.port', '--json', '--config', file, '--data-dir', dataDir])).stdout) as Array<{ value: unknown; source: string }>
    expect(shown).toEqual([expect.objectContaining({ value: values.server.port, source: `file ${file}` })])
  })

  it('states the precedence rule', () => {
    expect(section.replace(/\s+/g, ' ')).toContain('(flag > environment > file > default)')
  })
})
