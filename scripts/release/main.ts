/**
 * `npm run release`: builds what an operator carries to a host without internet.
 *
 *   release/lectern-<version>-linux-x64.tar.gz   the program, its production dependencies and
 *                                                 the Node runtime it runs on; unpack and run
 *   release/lectern_<version>_amd64.deb           the same tree as a Debian package
 *   release/sbom.cdx.json                         the CycloneDX SBOM (also inside both)
 *   release/SHA256SUMS                            checksums of the three, for `sha256sum -c`
 *
 * Run after `npm run build` (the npm script does both); what it needs is in USAGE below, and the
 * artifacts it writes need none of it.
 */
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { execa } from 'execa'
import * as tar from 'tar'
import { filesUnder, SUMS_FILE, writeSums } from './checksums.js'
import { buildDeb } from './deb.js'
import { installDependencies } from './dependencies.js'
import { checkLibcFloor } from './glibc.js'
import { writeThirdPartyLicenses } from './licenses.js'
import { pruneDependencies } from './prune.js'
import { fetchRuntime } from './runtime.js'
import { SBOM_FILE, writeSbom } from './sbom.js'

const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..', '..')

/** What the release copies from the built checkout; dist/ loses the build and bench tools. */
const PROGRAM_FILES = ['bin/run.js', 'oclif.manifest.json', 'README.md', 'docs', 'deploy']
const DIST_LEFT_OUT = new Set(['bench', 'scripts'])

const started = Date.now()
function step(what: string): void {
  process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${what}\n`)
}

const USAGE = `Usage: npm run release [-- --out DIR]

Builds lectern-<version>-linux-x64.tar.gz, lectern_<version>_amd64.deb, sbom.cdx.json and
SHA256SUMS into DIR (default: release/), working in DIR/.work (removed at the end, failed or not).

Needs: a built checkout (npm run release builds it first), the npm registry or npm's cache (the
Node runtime and the production dependencies), python3, make, g++ and strip (better-sqlite3 is
compiled for the bundled runtime), objdump and dpkg-deb. The artifacts need none of them.
`

let options: { out: string; help: boolean }
try {
  options = parseArgs({ options: { out: { type: 'string', default: path.join(PROJECT_ROOT, 'release') }, help: { type: 'boolean', short: 'h', default: false } } }).values
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n\n${USAGE}`)
  process.exit(2)
}
if (options.help) {
  process.stdout.write(USAGE)
  process.exit(0)
}

const { version } = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
const out = path.resolve(options.out)
const work = path.join(out, '.work')
const name = `lectern-${version}-linux-x64`
const stage = path.join(work, name)

checkBuilt()
fs.rmSync(work, { recursive: true, force: true })
fs.mkdirSync(stage, { recursive: true })
try {
  await release()
} catch (err) {
  process.stderr.write(`The release failed: ${(err as Error).message}\n`)
  process.exitCode = 1
} finally {
  fs.rmSync(work, { recursive: true, force: true })
}

/** The built program is there, and its command manifest (what --help prints) is as new as its commands. */
function checkBuilt(): void {
  for (const built of ['dist', 'oclif.manifest.json']) {
    if (!fs.existsSync(path.join(PROJECT_ROOT, built))) {
      process.stderr.write(`${built} is missing: run \`npm run build\` first (\`npm run release\` does).\n`)
      process.exit(1)
    }
  }
  const manifestTime = fs.statSync(path.join(PROJECT_ROOT, 'oclif.manifest.json')).mtimeMs
  const commands = path.join(PROJECT_ROOT, 'dist', 'commands')
  const stale = filesUnder(commands).filter((file) => fs.statSync(path.join(commands, file)).mtimeMs > manifestTime)
  if (stale.length > 0) {
    process.stderr.write(`oclif.manifest.json is older than dist/commands/${stale[0]}: run \`npm run build\` (\`npm run release\` does), so --help matches the code.\n`)
    process.exit(1)
  }
}

async function release(): Promise<void> {
  step('Fetching the Node runtime')
  const runtime = await fetchRuntime(path.join(work, 'runtime'))
  fs.mkdirSync(path.join(stage, 'node', 'bin'), { recursive: true })
  fs.copyFileSync(path.join(runtime.dir, 'bin', 'node'), path.join(stage, 'node', 'bin', 'node'))
  fs.chmodSync(path.join(stage, 'node', 'bin', 'node'), 0o755)
  fs.copyFileSync(path.join(runtime.dir, 'LICENSE'), path.join(stage, 'node', 'LICENSE'))

  step(`Copying the program (Node ${runtime.version})`)
  for (const file of PROGRAM_FILES) fs.cpSync(path.join(PROJECT_ROOT, file), path.join(stage, file), { recursive: true })
  fs.cpSync(path.join(PROJECT_ROOT, 'packaging', 'bin', 'lectern'), path.join(stage, 'bin', 'lectern'))
  fs.cpSync(path.join(PROJECT_ROOT, 'dist'), path.join(stage, 'dist'), {
    recursive: true,
    filter: (source) => !source.endsWith('.map') && !DIST_LEFT_OUT.has(path.relative(path.join(PROJECT_ROOT, 'dist'), source)),
  })

  step('Installing the production dependencies, native modules built for the bundled runtime')
  await installDependencies(PROJECT_ROOT, stage, runtime)
  await pruneDependencies(path.join(stage, 'node_modules'))

  step('Checking that the program starts on the bundled runtime')
  const checked = await execa(path.join(stage, 'bin', 'lectern'), ['--version'], { env: { PATH: '/usr/bin:/bin' }, extendEnv: false })
  if (!checked.stdout.includes(version)) throw new Error(`bin/lectern --version printed ${checked.stdout}`)
  await execa(path.join(stage, 'node', 'bin', 'node'), ['-e', "require('better-sqlite3')(':memory:').prepare('select 1').get(); require('usearch')"], { cwd: stage })
  const binaries = [path.join(stage, 'node', 'bin', 'node'), ...filesUnder(stage).filter((file) => file.endsWith('.node')).map((file) => path.join(stage, file))]
  const needs = await checkLibcFloor(binaries)
  step(`  its binaries need glibc ${needs.glibc} and GLIBCXX ${needs.glibcxx} at most`)

  step('Writing THIRD-PARTY-LICENSES and the SBOM')
  const licenses = writeThirdPartyLicenses(stage, runtime)
  if (licenses.withoutFile.length > 0) step(`  ${licenses.withoutFile.length} of ${licenses.packages} packages ship no licence file (listed with their declared licence): ${licenses.withoutFile.join(', ')}`)
  await writeSbom(stage, runtime)
  await writeSums(stage, filesUnder(stage))

  step(`Writing ${name}.tar.gz`)
  const tarball = `${name}.tar.gz`
  await tar.c({ gzip: { level: 6 }, cwd: work, file: path.join(out, tarball), portable: true }, [name])

  step('Building the Debian package')
  const deb = await buildDeb({ stage, work, out, version, projectRoot: PROJECT_ROOT })

  fs.copyFileSync(path.join(stage, SBOM_FILE), path.join(out, SBOM_FILE))
  await writeSums(out, [tarball, path.basename(deb), SBOM_FILE])
  step(`Done: ${[tarball, path.basename(deb), SBOM_FILE, SUMS_FILE].map((file) => path.join(out, file)).join(', ')}`)
}
