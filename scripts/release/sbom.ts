/**
 * The release's CycloneDX SBOM: npm's own `npm sbom` over the installed production tree (every
 * bundled package with its version, purl, licence and hash), completed with what npm does not see:
 * the bundled Node runtime, Lectern itself named as the described component, and the licence of a
 * package whose package.json names it other than by an SPDX ID (npm leaves those out).
 */
import fs from 'node:fs'
import path from 'node:path'
import { execa } from 'execa'
import { bundledPackages } from './licenses.js'
import { NODE_RUNTIME, type Runtime } from './runtime.js'

export const SBOM_FILE = 'sbom.cdx.json'

interface Component {
  'bom-ref': string
  type: string
  name: string
  version: string
  purl?: string
  hashes?: Array<{ alg: string; content: string }>
  licenses?: Array<{ license: { id: string } | { name: string } }>
  [key: string]: unknown
}

interface Bom {
  metadata: { component: Component; [key: string]: unknown }
  components: Component[]
  dependencies?: Array<{ ref: string; dependsOn?: string[] }>
  [key: string]: unknown
}

export async function writeSbom(stage: string, runtime: Runtime): Promise<Bom> {
  const generated = await execa('npm', ['sbom', '--sbom-format=cyclonedx', '--sbom-type=application', '--omit=dev'], { cwd: stage })
  const bom = JSON.parse(generated.stdout) as Bom
  const root = bom.metadata.component
  root.name = 'lectern'
  const declared = new Map(bundledPackages(path.join(stage, 'node_modules')).map((p) => [`${p.name}@${p.version}`, p.license]))
  for (const component of bom.components) {
    const license = declared.get(`${component.name}@${component.version}`)
    if (!component.licenses?.length && license) component.licenses = [{ license: { name: license } }]
  }
  const runtimeRef = `${NODE_RUNTIME.package}@${runtime.version}`
  bom.components.push({
    'bom-ref': runtimeRef,
    type: 'platform',
    name: 'node',
    version: runtime.version,
    purl: `pkg:npm/${NODE_RUNTIME.package}@${runtime.version}`,
    hashes: [{ alg: 'SHA-512', content: Buffer.from(runtime.integrity.replace(/^sha512-/, ''), 'base64').toString('hex') }],
    licenses: [{ license: { id: 'MIT' } }],
  })
  const rootDependencies = bom.dependencies?.find((d) => d.ref === root['bom-ref'])
  if (rootDependencies) rootDependencies.dependsOn = [...(rootDependencies.dependsOn ?? []), runtimeRef]
  fs.writeFileSync(path.join(stage, SBOM_FILE), `${JSON.stringify(bom, null, 2)}\n`)
  return bom
}
