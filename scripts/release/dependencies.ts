/**
 * The production dependencies of a release, installed from the lockfile and with their native
 * modules built for the bundled runtime rather than for the Node that runs the build.
 *
 * npm installs with every script off, then `npm rebuild` runs the dependencies' install scripts
 * with node-gyp pointed at the runtime's own headers (`npm_config_nodedir`, as Node's docs say
 * for building against a Node other than the running one). better-sqlite3 is built from source:
 * its install would otherwise try to download a prebuilt binary, which fails on a host without
 * internet and, on a host with it, could fetch one for the wrong Node.
 */
import fs from 'node:fs'
import path from 'node:path'
import { execa } from 'execa'
import type { Runtime } from './runtime.js'

export async function installDependencies(projectRoot: string, stage: string, runtime: Runtime): Promise<void> {
  for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(projectRoot, file), path.join(stage, file))
  const quiet = ['--no-audit', '--no-fund', '--loglevel=error']
  await execa('npm', ['ci', '--omit=dev', '--ignore-scripts', ...quiet], { cwd: stage, stdio: 'inherit' })
  await execa('npm', ['rebuild', ...quiet], {
    cwd: stage,
    stdio: 'inherit',
    env: {
      npm_config_nodedir: runtime.dir,
      npm_config_target: runtime.version,
      npm_config_runtime: 'node',
      npm_config_arch: 'x64',
      // prebuild-install (better-sqlite3) reads a package name here; node-gyp-build (usearch) only
      // 'true', so usearch keeps its prebuild: N-API addons load on every Node version.
      npm_config_build_from_source: 'better-sqlite3',
      // node-gyp compiles one file at a time unless told; SQLite's amalgamation is most of the wait.
      JOBS: 'max',
    },
  })
  // The release's package.json describes the release: its scripts build and test a checkout,
  // and its dev dependencies are not there (npm would report them missing).
  const manifestFile = path.join(stage, 'package.json')
  const { devDependencies: _dev, scripts: _scripts, ...manifest } = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, unknown>
  fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`)
}

