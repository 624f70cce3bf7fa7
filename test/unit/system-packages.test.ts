/** A test that needs a missing Debian package fails with one line naming it (test/helpers/system.ts). */
import { describe, expect, it } from 'vitest'
import { requireSystemCommand } from '../helpers/system.js'

describe('requireSystemCommand', () => {
  it('passes for a command on the PATH or at its path, and names the package of a missing one in one line', () => {
    expect(() => requireSystemCommand('sh', 'dash')).not.toThrow()
    expect(() => requireSystemCommand('/bin/sh', 'dash')).not.toThrow()
    expect(() => requireSystemCommand('/usr/sbin/no-such-nginx', 'nginx')).toThrow(
      new Error('/usr/sbin/no-such-nginx is missing: install the Debian package nginx (npm test installs it: scripts/system-packages.sh).'),
    )
    expect(() => requireSystemCommand('no-such-lintian', 'lintian')).toThrow(/^no-such-lintian is missing: install the Debian package lintian/)
  })
})
