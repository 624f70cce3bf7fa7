/**
 * THIRD-PARTY-LICENSES: the licence texts of everything a release bundles, the Node runtime and
 * every package under node_modules (nested copies included), read from the installed tree itself
 * so that what is listed is what ships. A package that carries no licence file is listed with the
 * licence its package.json declares, and the build reports it.
 */
import fs from 'node:fs'
import path from 'node:path'

/** LICENSE, LICENCE.md, COPYING, NOTICE.txt, LICENSE-MIT.txt, license.apache2 ... */
const LICENSE_FILE = /^(licen[cs]e|copying|notice)([-._][\w.-]*)?$/i

export interface BundledPackage {
  name: string
  version: string
  license: string
  dir: string
}

/** Every package directory under `nodeModules`, depth first, in a stable order. */
export function bundledPackages(nodeModules: string): BundledPackage[] {
  const found: BundledPackage[] = []
  const visit = (dir: string) => {
    if (!fs.existsSync(dir)) return
    for (const name of fs.readdirSync(dir).sort()) {
      if (name.startsWith('.')) continue
      const full = path.join(dir, name)
      if (name.startsWith('@')) {
        visit(full)
        continue
      }
      const manifest = path.join(full, 'package.json')
      if (!fs.existsSync(manifest)) continue
      const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string; version?: string; license?: string | { type?: string } }
      const license = typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? 'UNKNOWN')
      found.push({ name: pkg.name ?? name, version: pkg.version ?? '0.0.0', license, dir: full })
      visit(path.join(full, 'node_modules'))
    }
  }
  visit(nodeModules)
  return found
}

export interface LicenseReport {
  packages: number
  /** `name@version` of the packages that ship no licence file (listed with their declared licence). */
  withoutFile: string[]
}

export function writeThirdPartyLicenses(stage: string, runtime: { version: string; dir: string }): LicenseReport {
  const sections: string[] = [`Node.js ${runtime.version} (MIT; with the licences of what Node bundles)\n\n${fs.readFileSync(path.join(runtime.dir, 'LICENSE'), 'utf8')}`]
  const withoutFile: string[] = []
  const packages = bundledPackages(path.join(stage, 'node_modules'))
  const seen = new Set<string>()
  for (const pkg of packages) {
    const id = `${pkg.name}@${pkg.version}`
    if (seen.has(id)) continue
    seen.add(id)
    const files = fs.readdirSync(pkg.dir).filter((name) => LICENSE_FILE.test(name)).sort()
    if (files.length === 0) withoutFile.push(id)
    const texts = files.map((name) => fs.readFileSync(path.join(pkg.dir, name), 'utf8').trim())
    const body = texts.length > 0 ? texts.join('\n\n') : `The package ships no licence file; its package.json declares ${pkg.license}.`
    sections.push(`${id} (${pkg.license})\n\n${body}`)
  }
  const rule = `\n\n${'='.repeat(78)}\n\n`
  const heading = `Lectern bundles the software below. Each section names a package, its version and its declared licence, then the licence texts it ships.`
  fs.writeFileSync(path.join(stage, 'THIRD-PARTY-LICENSES'), `${heading}${rule}${sections.join(rule)}\n`)
  return { packages: seen.size, withoutFile }
}
