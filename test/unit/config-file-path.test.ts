/**
 * Which lectern.yaml a command reads: the one named, else ./lectern.yaml, else the host's
 * /etc/lectern/lectern.yaml (the Debian package's), so that `sudo -u lectern lectern ...` run from
 * any folder finds the service's settings. The package's install test reads the real
 * /etc/lectern/lectern.yaml (test/release/deb-install.sh).
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CONFIG_ENV, configFilePath } from '../../src/config.js'
import { tmpDir } from '../helpers/tmp.js'

describe('configFilePath', () => {
  it('takes the flag, else LECTERN_CONFIG, else ./lectern.yaml, else the system file, else none', async () => {
    const cwd = await tmpDir()
    const system = path.join(await tmpDir(), 'lectern.yaml')
    expect(configFilePath(undefined, {}, cwd, system)).toBeUndefined()
    fs.writeFileSync(system, 'server:\n  port: 3001\n')
    expect(configFilePath(undefined, {}, cwd, system)).toBe(system)
    fs.writeFileSync(path.join(cwd, 'lectern.yaml'), 'server:\n  port: 3002\n')
    expect(configFilePath(undefined, {}, cwd, system)).toBe(path.join(cwd, 'lectern.yaml'))
    expect(configFilePath(undefined, { [CONFIG_ENV]: 'other.yaml' }, cwd, system)).toBe(path.join(cwd, 'other.yaml'))
    expect(configFilePath('/x/flag.yaml', { [CONFIG_ENV]: 'other.yaml' }, cwd, system)).toBe('/x/flag.yaml')
  })
})
