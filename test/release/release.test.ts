/**
 * `npm run release` as CI builds it, and its artifacts used as an operator on a host without
 * internet would use them:
 * - the tarball unpacked into a temporary folder and run on its bundled Node in a network
 *   namespace with loopback only and the machine's own node hidden (test/release/smoke.mjs);
 * - the Debian package held to lintian (Debian's package checker, warnings included) and
 *   installed with apt-get into a throw-away root, where its service runs, a CLI command reaches
 *   the service's data, and remove and purge do what they promise (test/release/deb-install.sh);
 * - the checksums, the licences and the SBOM checked against what the tarball really holds.
 * The release is built once (about three minutes here: the native modules compile for the
 * bundled Node) and every test reads it.
 */
import fs from 'node:fs'
import { networkInterfaces } from 'node:os'
import path from 'node:path'
import { execa, type ResultPromise } from 'execa'
import { beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { checkLibcFloor, GLIBC_FLOOR } from '../../scripts/release/glibc.js'
import { bundledPackages } from '../../scripts/release/licenses.js'
import { fetchRuntime, NODE_RUNTIME } from '../../scripts/release/runtime.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { codeBlocks, readmeSection } from '../helpers/readme.js'
import { freePort, GRACEFUL_STOP } from '../helpers/server.js'
import { requireSystemCommand } from '../helpers/system.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 300_000 })

const defer = suiteTeardown()
const { version } = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
const tarballName = `lectern-${version}-linux-x64.tar.gz`
const debName = `lectern_${version}_amd64.deb`

let out: string
/** The tarball unpacked: lectern-<version>-linux-x64/ in a temporary folder. */
let unpacked: string
let lintian: ResultPromise<{ reject: false; all: true }>

beforeAll(async () => {
  for (const [command, debianPackage] of [['lintian', 'lintian'], ['dpkg-deb', 'dpkg'], ['unshare', 'util-linux'], ['ip', 'iproute2'], ['g++', 'g++'], ['strip', 'binutils'], ['sudo', 'sudo']]) {
    requireSystemCommand(command!, debianPackage!)
  }
  out = await tmpDir('lectern-release-', defer)
  const built = await execa('node', [path.join(PROJECT_ROOT, 'dist/scripts/release/main.js'), '--out', out], { reject: false, all: true })
  expect(built.exitCode, built.all).toBe(0)
  // lintian reads every file of the package for about a minute and a half: it runs beside the other tests.
  lintian = execa('lintian', ['--fail-on', 'error,warning', '--tag-display-limit', '0', path.join(out, debName)], { reject: false, all: true })
  const into = await tmpDir('lectern-unpacked-', defer)
  await execa('tar', ['-xzf', path.join(out, tarballName), '-C', into])
  unpacked = path.join(into, `lectern-${version}-linux-x64`)
}, 900_000)

describe('npm run release', () => {
  it('writes the tarball, the package and the SBOM with a SHA256SUMS that verifies them, and fails on a changed byte', async () => {
    expect(fs.readdirSync(out).sort()).toEqual(['SHA256SUMS', debName, tarballName, 'sbom.cdx.json'].sort())
    const verified = await execa('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out })
    expect(verified.stdout.split('\n').sort()).toEqual([`${debName}: OK`, `${tarballName}: OK`, 'sbom.cdx.json: OK'].sort())
    const tampered = await tmpDir('lectern-tampered-')
    fs.copyFileSync(path.join(out, 'SHA256SUMS'), path.join(tampered, 'SHA256SUMS'))
    fs.copyFileSync(path.join(out, 'sbom.cdx.json'), path.join(tampered, 'sbom.cdx.json'))
    fs.appendFileSync(path.join(tampered, 'sbom.cdx.json'), ' ')
    const refused = await execa('sha256sum', ['-c', '--ignore-missing', 'SHA256SUMS'], { cwd: tampered, reject: false })
    expect(refused.exitCode).not.toBe(0)
    expect(refused.stdout).toContain('sbom.cdx.json: FAILED')
  })

  it('bundles the pinned Node LTS, the program and its production dependencies only, with a SHA256SUMS of every file', async () => {
    expect((await execa(path.join(unpacked, 'node/bin/node'), ['--version'])).stdout).toBe(`v${NODE_RUNTIME.version}`)
    for (const file of ['bin/lectern', 'bin/run.js', 'dist/commands/serve.js', 'dist/web/index.html', 'oclif.manifest.json', 'deploy/lectern.service', 'deploy/Dockerfile', 'THIRD-PARTY-LICENSES', 'node/LICENSE', 'README.md']) {
      expect(fs.existsSync(path.join(unpacked, file)), file).toBe(true)
    }
    expect(fs.statSync(path.join(unpacked, 'bin/lectern')).mode & 0o111).toBe(0o111)
    // Dev dependencies and the build's own tools stay out.
    for (const absent of ['node_modules/vitest', 'node_modules/vite', 'node_modules/@types/better-sqlite3', 'node_modules/.bin', 'node_modules/madge', 'dist/scripts', 'dist/bench', 'src', 'test']) {
      expect(fs.existsSync(path.join(unpacked, absent)), absent).toBe(false)
    }
    // The native modules were built for, and load on, the bundled runtime.
    const loaded = await execa(path.join(unpacked, 'node/bin/node'), ['-e', "require('better-sqlite3')(':memory:'); require('usearch'); console.log(process.versions.modules)"], { cwd: unpacked })
    expect(loaded.stdout).toMatch(/^\d+$/)
    const inner = await execa('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: unpacked, reject: false })
    expect(inner.exitCode, inner.stdout).toBe(0)
    const listed = fs.readFileSync(path.join(unpacked, 'SHA256SUMS'), 'utf8').trim().split('\n').map((line) => line.slice(66))
    expect(listed).toContain('node/bin/node')
    expect(listed).toContain('node_modules/better-sqlite3/build/Release/better_sqlite3.node')
  })

  it('names every bundled package in THIRD-PARTY-LICENSES and the CycloneDX SBOM, and the runtime by its pinned hash', () => {
    const packages = bundledPackages(path.join(unpacked, 'node_modules'))
    expect(packages.length).toBeGreaterThan(300)
    const licenses = fs.readFileSync(path.join(unpacked, 'THIRD-PARTY-LICENSES'), 'utf8')
    const sbom = JSON.parse(fs.readFileSync(path.join(unpacked, 'sbom.cdx.json'), 'utf8')) as {
      bomFormat: string
      specVersion: string
      metadata: { component: { name: string; version: string } }
      components: Array<{ name: string; version: string; type: string; hashes?: Array<{ alg: string; content: string }> }>
    }
    expect(sbom.bomFormat).toBe('CycloneDX')
    expect(sbom.metadata.component).toMatchObject({ name: 'lectern', version })
    const inSbom = new Set(sbom.components.map((c) => `${c.name}@${c.version}`))
    const missing = packages.map((p) => `${p.name}@${p.version}`).filter((id) => !inSbom.has(id) || !licenses.includes(`\n${id} (`))
    expect(missing).toEqual([])
    expect(licenses).toContain('MIT License') // better-sqlite3's text, not only its name
    // A licence file named LICENSE-MIT.txt (punycode.js) is found as LICENSE is.
    expect(licenses).toMatch(/\npunycode\.js@[\d.]+ \(MIT\)\n\n(?!The package ships no licence file)/)
    expect(licenses).toContain(`Node.js ${NODE_RUNTIME.version}`)
    const runtime = sbom.components.find((c) => c.type === 'platform')!
    expect(runtime).toMatchObject({ name: 'node', version: NODE_RUNTIME.version })
    expect(runtime.hashes).toEqual([{ alg: 'SHA-512', content: Buffer.from(NODE_RUNTIME.integrity.slice('sha512-'.length), 'base64').toString('hex') }])
    // Every library has its licence, SPDX or as its package.json writes it (usearch: "Apache 2.0").
    expect(sbom.components.filter((c) => c.type === 'library' && !(c as { licenses?: unknown[] }).licenses?.length).map((c) => c.name)).toEqual([])
    // Nothing of the development tree: no dev dependency is listed.
    for (const dev of ['vitest', 'vite', 'madge', 's3rver']) expect(sbom.components.some((c) => c.name === dev), dev).toBe(false)
  })

  it('runs with no network and no other Node: the smoke and API suite on the bundled runtime', async () => {
    const empty = await tmpDir('lectern-hidden-')
    // In namespaces of its own: loopback only, the machine's node, npm and Node headers hidden.
    const hide = 'ip link set lo up && mount --bind /dev/null /usr/bin/node && mount --bind "$0" /usr/lib/node_modules && mount --bind "$0" /usr/include/node && ! command -v node && exec "$@"'
    const smoke = await execa('unshare', ['--mount', '--net', '--pid', '--mount-proc', '--fork', '--', 'sh', '-c', hide, empty, path.join(unpacked, 'node/bin/node'), path.join(PROJECT_ROOT, 'test/release/smoke.mjs'), unpacked], {
      env: { SMOKE_OFFLINE: '1' },
      reject: false,
      all: true,
      timeout: 240_000,
    })
    const checks = smoke.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { check?: string; ok?: boolean; done?: boolean })
    expect(smoke.exitCode, smoke.all).toBe(0)
    expect(checks.filter((c) => c.ok === false)).toEqual([])
    expect(checks.at(-1)).toEqual({ done: true })
    expect(checks.map((c) => c.check)).toEqual(expect.arrayContaining(['no network but loopback', 'the server process is the bundled node', 'MCP query-docs answers with the code', 'SIGTERM stops the server cleanly']))
  })

  it('refuses an unknown option with its usage, exit 2, building nothing', async () => {
    const refused = await execa('node', [path.join(PROJECT_ROOT, 'dist/scripts/release/main.js'), '--bogus'], { reject: false })
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toContain("Unknown option '--bogus'")
    expect(refused.stderr).toContain('Usage: npm run release [-- --out DIR]')
    expect(fs.existsSync(path.join(PROJECT_ROOT, 'release', '.work'))).toBe(false)
  })

  it('states one C library floor in the README and the package, and its binaries stay within it', async () => {
    expect(fs.readFileSync(path.join(PROJECT_ROOT, 'packaging/debian/control'), 'utf8')).toContain(`libc6 (>= ${GLIBC_FLOOR})`)
    expect(readmeSection('Install on a host without internet')).toContain(`glibc ${GLIBC_FLOOR} or newer`)
    const binaries = ['node/bin/node', 'node_modules/better-sqlite3/build/Release/better_sqlite3.node', 'node_modules/usearch/prebuilds/linux-x64/usearch.node']
    await expect(checkLibcFloor(binaries.map((file) => path.join(unpacked, file)))).resolves.toEqual({ glibc: GLIBC_FLOOR, glibcxx: expect.any(String) })
  })

  it('refuses a runtime whose hash is not the pinned one', async () => {
    const work = await tmpDir('lectern-runtime-')
    await expect(fetchRuntime(work, { ...NODE_RUNTIME, integrity: `sha512-${Buffer.alloc(64).toString('base64')}` })).rejects.toThrow(/does not match its pinned integrity/)
    expect(fs.readdirSync(work)).toEqual([])
  })
})

describe('the Debian package', () => {
  it('has the control fields, the paths and the unit of the install', async () => {
    const deb = path.join(out, debName)
    const field = async (name: string) => (await execa('dpkg-deb', ['--field', deb, name])).stdout
    expect(await field('Package')).toBe('lectern')
    expect(await field('Version')).toBe(version)
    expect(await field('Architecture')).toBe('amd64')
    expect(await field('Depends')).toMatch(/\bgit\b/)
    const contents = (await execa('dpkg-deb', ['--contents', deb])).stdout
    expect(contents).toMatch(/\.\/usr\/bin\/lectern -> \/opt\/lectern\/bin\/lectern$/m)
    for (const file of ['./opt/lectern/bin/lectern', './opt/lectern/node/bin/node', './lib/systemd/system/lectern.service', './etc/lectern/lectern.yaml', './usr/share/doc/lectern/copyright', './usr/share/man/man1/lectern.1.gz']) {
      expect(contents, file).toContain(` ${file}`)
    }
    const extracted = await tmpDir('lectern-deb-')
    await execa('dpkg-deb', ['--extract', deb, extracted])
    // The unit and the settings file are deploy/'s, so the tarball's install and the package's agree.
    expect(fs.readFileSync(path.join(extracted, 'lib/systemd/system/lectern.service'), 'utf8')).toBe(fs.readFileSync(path.join(PROJECT_ROOT, 'deploy/lectern.service'), 'utf8'))
    expect(fs.readFileSync(path.join(extracted, 'etc/lectern/lectern.yaml'), 'utf8')).toBe(fs.readFileSync(path.join(PROJECT_ROOT, 'deploy/lectern.yaml'), 'utf8'))
    expect(fs.readFileSync(path.join(extracted, 'opt/lectern/SHA256SUMS'), 'utf8')).toBe(fs.readFileSync(path.join(unpacked, 'SHA256SUMS'), 'utf8'))
  })

  it('installs offline into a throw-away root, runs as the lectern user, and keeps the data on remove, not on purge', async () => {
    const scratch = await tmpDir('lectern-root-')
    const installed = await execa('unshare', ['--mount', '--net', '--pid', '--fork', '--', 'bash', path.join(PROJECT_ROOT, 'test/release/deb-install.sh'), path.join(out, debName), scratch], { reject: false, all: true, timeout: 300_000 })
    expect(installed.exitCode, installed.all).toBe(0)
    expect(installed.stdout.split('\n').filter((line) => line.startsWith('ok: '))).toHaveLength(12)
  })

  it('is lintian clean (errors and warnings), with overrides only for what a vendor package with its own runtime is', async () => {
    const result = await lintian
    const findings = result.all.split('\n').filter((line) => /^[EW]: /.test(line))
    expect(findings).toEqual([])
    expect(result.exitCode, result.all).toBe(0)
  }, 300_000)
})

describe("README's Install on a host without internet, run as written", () => {
  const section = readmeSection('Install on a host without internet')
  const blocks = codeBlocks('sh', section)
  const [verify, debian, tarball, upgrade, rollback, docker] = blocks

  /** Runs example blocks in a fresh throw-away root, in a folder holding the release's files (and `extra`). */
  async function runExamples(lines: string[], extra: Record<string, string> = {}) {
    const folder = await tmpDir('lectern-carried-')
    for (const file of fs.readdirSync(out)) fs.copyFileSync(path.join(out, file), path.join(folder, file))
    for (const [name, from] of Object.entries(extra)) fs.copyFileSync(from, path.join(folder, name))
    const examples = path.join(await tmpDir('lectern-examples-'), 'examples.sh')
    fs.writeFileSync(examples, `${lines.join('\n')}\n`)
    const scratch = await tmpDir('lectern-root-')
    return execa('unshare', ['--mount', '--net', '--pid', '--fork', '--', 'bash', path.join(PROJECT_ROOT, 'test/release/readme-examples.sh'), folder, scratch, examples], { reject: false, all: true, timeout: 300_000 })
  }

  it('has the blocks these tests run, naming the version being released', () => {
    expect(blocks).toHaveLength(6)
    expect(verify!.trim()).toBe('sha256sum -c SHA256SUMS')
    expect(debian).toContain(`sudo apt install ./${debName}`)
    expect(tarball).toContain(`sudo tar -xzf ${tarballName} -C /opt`)
    expect(section).toContain(`| \`${tarballName}\` |`)
    expect(section).toContain(`| \`${debName}\` |`)
  })

  it('verifies the carried files, installs the Debian package, starts the service and creates a key as lectern', async () => {
    const ran = await runExamples([verify!, debian!, 'sudo -u lectern lectern keys list --json | grep -q \'"name": "me"\''])
    expect(ran.exitCode, ran.all).toBe(0)
    expect(ran.all).toContain(`${tarballName}: OK`)
    expect(ran.stdout).toContain('ok: the examples ran')
  })

  it('installs the tarball with the unit from deploy/, upgrades in place and rolls back, keeping the data', async () => {
    // The "newer" release is this one repacked under the next version's name: what the examples
    // move is the link, the service and the data, whatever the program inside.
    const next = await tmpDir('lectern-next-')
    await execa('cp', ['-a', unpacked, path.join(next, 'lectern-0.2.0-linux-x64')])
    const nextTarball = path.join(next, 'lectern-0.2.0-linux-x64.tar.gz')
    await execa('tar', ['-czf', nextTarball, '-C', next, 'lectern-0.2.0-linux-x64'])
    const checks = [
      '[ "$(readlink /opt/lectern)" = lectern-0.1.0-linux-x64 ]',
      '[ -f "$archive" ]',
      'sudo -u lectern lectern keys list --json | grep -q \'"name": "me"\'',
      '/opt/lectern/node/bin/node -e \'fetch("http://127.0.0.1:3000/api/ready").then((r) => process.exit(r.ok ? 0 : 1))\'',
    ]
    const ran = await runExamples([verify!, tarball!, upgrade!, '[ "$(readlink /opt/lectern)" = lectern-0.2.0-linux-x64 ]', rollback!, ...checks], { 'lectern-0.2.0-linux-x64.tar.gz': nextTarball })
    expect(ran.exitCode, ran.all).toBe(0)
    expect(ran.stdout).toContain('ok: the examples ran')
    expect(ran.all).toContain('Restored')
  })

  it('builds the image from the release folder with deploy/Dockerfile and carries it with docker save and load (not run: no Docker engine in CI)', () => {
    const lines = docker!.trim().split('\n')
    expect(lines[0]).toBe(`docker build -f deploy/Dockerfile -t lectern:${version} release/`)
    expect(lines.slice(1).join('\n')).toMatch(/docker save lectern:\S+ \| gzip > (\S+)\ndocker load -i \1\ndocker run /)
    expect(fs.existsSync(path.join(PROJECT_ROOT, 'deploy/Dockerfile'))).toBe(true)
    // The build context the README names is where `npm run release` writes by default.
    expect(fs.readFileSync(path.join(PROJECT_ROOT, 'scripts/release/main.ts'), 'utf8')).toContain("default: path.join(PROJECT_ROOT, 'release')")
  })
})

describe("the release's deploy/docker-entrypoint.sh, as the image runs it", () => {
  const entrypoint = () => path.join(unpacked, 'deploy/docker-entrypoint.sh')
  /** The container's environment: no LECTERN_* of the test runner leaks in. */
  const containerEnv = (extra: Record<string, string>) => ({ PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: process.env.HOME ?? '/tmp', ...extra })

  it('serves by default on all interfaces, with JSON logs, and stops cleanly on SIGTERM', async () => {
    const dataDir = await tmpDir('lectern-data-')
    const port = await freePort()
    const server = execa(entrypoint(), [], { env: containerEnv({ LECTERN_DATA_DIR: dataDir, PORT: String(port) }), extendEnv: false, reject: false, cwd: dataDir, ...GRACEFUL_STOP })
    onTestFinished(async () => {
      if (server.exitCode === null) server.kill('SIGKILL')
      await server
    })
    await pollUntil('the server to be ready', async () => {
      if (server.exitCode !== null) throw new Error(`exited with ${server.exitCode}: ${(await server).stderr}`)
      return (await fetch(`http://127.0.0.1:${port}/api/ready`).catch(() => undefined))?.status === 200 ? true : undefined
    }, 60_000)
    // Reachable on the machine's own address, not only on loopback: it listens on all interfaces.
    const external = Object.values(networkInterfaces()).flat().find((a) => a?.family === 'IPv4' && !a.internal)
    expect(external, 'a non-loopback IPv4 address to test with').toBeDefined()
    expect((await fetch(`http://${external!.address}:${port}/api/ready`)).status).toBe(200)
    server.kill('SIGTERM')
    const ended = await server
    expect(ended.exitCode).toBe(0)
    // JSON lines, as a container's log collector wants them.
    for (const line of String(ended.stdout).split('\n').filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow()
    expect(fs.existsSync(path.join(dataDir, 'lectern.db'))).toBe(true)
  })

  it('runs any other command with the container defaults, each overridable by its variable', async () => {
    // The volume as the container's first `serve` left it: no other command creates one.
    const dataDir = await tmpDataDir()
    const created = await execa(entrypoint(), ['keys', 'create', '--name', 'ci', '--json'], { env: containerEnv({ LECTERN_DATA_DIR: dataDir }), extendEnv: false })
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'ci' })
    const read = async (extra: Record<string, string>) => {
      const result = await execa(entrypoint(), ['config', 'get', '--json'], { env: containerEnv({ LECTERN_DATA_DIR: dataDir, ...extra }), extendEnv: false })
      return Object.fromEntries((JSON.parse(result.stdout) as Array<{ name: string; value: unknown; source: string }>).map((r) => [r.name, [r.value, r.source]]))
    }
    expect(await read({})).toMatchObject({
      dataDir: [dataDir, 'env LECTERN_DATA_DIR'],
      'server.host': ['0.0.0.0', 'env LECTERN_HOST'],
      'server.supervise': [false, 'env LECTERN_SUPERVISE'],
      'log.format': ['json', 'env LECTERN_LOG_FORMAT'],
    })
    expect(await read({ LECTERN_HOST: '127.0.0.1', LECTERN_SUPERVISE: 'true' })).toMatchObject({ 'server.host': ['127.0.0.1', 'env LECTERN_HOST'], 'server.supervise': [true, 'env LECTERN_SUPERVISE'] })
  })
})
