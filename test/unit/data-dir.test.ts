/**
 * The default data directory does not depend on the working directory; root is refused on a data
 * directory that belongs to another user (the package's `lectern`), so nothing it writes locks
 * that user's server out. The Debian package's install test runs both for real
 * (test/release/deb-install.sh).
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultDataDir, resolveConfig } from '../../src/config.js'
import { refuseRootOnForeignDataDir } from '../../src/install/data-dir.js'
import { tmpDir } from '../helpers/tmp.js'

describe('refuseRootOnForeignDataDir', () => {
  it("refuses root on another user's directory, naming the user and the command to run instead", async () => {
    const dir = await tmpDir()
    const foreign = path.join(dir, 'data')
    fs.mkdirSync(foreign)
    // nobody (65534) is in every Debian /etc/passwd; chown needs root, which the tests run as here.
    fs.chownSync(foreign, 65534, 65534)
    expect(() => refuseRootOnForeignDataDir(foreign, 'keys create', 0)).toThrow(
      `${foreign} belongs to the user nobody: run this command as that user (sudo -u nobody lectern keys create ...), since files it wrote as root would lock that user's server out.`,
    )
    fs.chownSync(foreign, 4242, 4242)
    expect(() => refuseRootOnForeignDataDir(foreign, 'serve', 0)).toThrow(/belongs to uid 4242: run this command as that user \(sudo -u #4242 lectern serve/)
  })

  it("lets root use its own or a new directory, and anyone but root any directory", async () => {
    const dir = await tmpDir()
    fs.chownSync(dir, 65534, 65534)
    expect(() => refuseRootOnForeignDataDir(dir, 'keys list', 1000)).not.toThrow()
    expect(() => refuseRootOnForeignDataDir(path.join(dir, 'not-yet'), 'serve', 0)).not.toThrow()
    fs.chownSync(dir, 0, 0)
    expect(() => refuseRootOnForeignDataDir(dir, 'serve', 0)).not.toThrow()
  })
})

describe('defaultDataDir', () => {
  it("is the package's directory when it exists, else $XDG_DATA_HOME/lectern, else ~/.local/share/lectern", async () => {
    const dir = await tmpDir()
    const system = path.join(dir, 'var-lib-lectern')
    const env = { HOME: '/home/ada', XDG_DATA_HOME: '/data/ada' }
    expect(defaultDataDir(env, system)).toBe('/data/ada/lectern')
    // The XDG Base Directory rule: a relative $XDG_DATA_HOME is invalid and ignored.
    expect(defaultDataDir({ HOME: '/home/ada', XDG_DATA_HOME: 'data' }, system)).toBe('/home/ada/.local/share/lectern')
    expect(defaultDataDir({ HOME: '/home/ada' }, system)).toBe('/home/ada/.local/share/lectern')
    fs.mkdirSync(system)
    expect(defaultDataDir(env, system)).toBe(system)
  })
})

describe('a data directory written with ~', () => {
  it('is the home folder, from lectern.yaml, the environment or --data-dir=~/..., never a folder named ~', () => {
    const env = { HOME: '/home/ada' }
    expect(resolveConfig({}, { ...env, LECTERN_DATA_DIR: '~/lectern' }).config.dataDir).toBe('/home/ada/lectern')
    expect(resolveConfig({ dataDir: '~' }, env).config.dataDir).toBe('/home/ada')
    expect(resolveConfig({}, env, { path: '/etc/lectern/lectern.yaml', values: { dataDir: '~/data' } }).config.dataDir).toBe('/home/ada/data')
    // Only a leading ~ alone or before a slash: ~ada and a~b are names like any other.
    expect(resolveConfig({ dataDir: '/srv/a~b' }, env).config.dataDir).toBe('/srv/a~b')
  })
})
