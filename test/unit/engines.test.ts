/**
 * `npm ci` prints no EBADENGINE warning on the development Node: every installed package's
 * `engines.node`, as the lockfile records it, admits the Node that runs the tests. A dependency
 * upgrade that needs a newer Node fails here, naming the package, instead of warning in CI's log.
 */
import fs from 'node:fs'
import path from 'node:path'
import semver from 'semver'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../helpers/cli.js'

interface LockedPackage {
  version?: string
  engines?: { node?: string } | string[]
}

const lock = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockedPackage> }

/** The packages whose declared Node range excludes `version`, as `path@version needs range`. */
function refusing(version: string): string[] {
  return Object.entries(lock.packages).flatMap(([where, locked]) => {
    const range = Array.isArray(locked.engines) ? undefined : locked.engines?.node
    if (range === undefined || semver.satisfies(version, range, { includePrerelease: true })) return []
    return [`${where || 'lectern'}@${locked.version} needs node ${range}`]
  })
}

describe('engines', () => {
  it('admits the development Node in every locked package', () => {
    expect(refusing(process.version)).toEqual([])
  })

  it('finds a package that needs a newer Node (the check is not vacuous)', () => {
    expect(refusing('18.0.0').length).toBeGreaterThan(0)
  })
})
