/** The running build's version and package directory, read once from the package.json shipped next to the code. */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

function findPackageRoot(): { root: string; version: string } {
  // From src/ under tsx/vitest and from dist/src/ when compiled: walk up until the package root.
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const file = path.join(dir, 'package.json')
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string; version: string }
      if (pkg.name === 'lectern') return { root: dir, version: pkg.version }
    }
    const parent = path.dirname(dir)
    if (parent === dir) throw new Error('package.json of lectern not found above the code')
    dir = parent
  }
}

const found = findPackageRoot()

export const APP_VERSION: string = found.version

/** The directory of lectern's package.json: built assets (the dashboard in dist/web/) are found from it. */
export const PACKAGE_ROOT: string = found.root

/** Compares dotted numeric versions (`0.10.2` > `0.9.9`); a pre-release suffix is ignored. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split('-')[0]!.split('.').map((n) => Number.parseInt(n, 10) || 0)
  const [pa, pb] = [parts(a), parts(b)]
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0)
    if (diff !== 0) return Math.sign(diff)
  }
  return 0
}
