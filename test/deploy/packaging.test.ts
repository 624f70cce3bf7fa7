/**
 * deploy/: what can be checked without Docker or a running systemd. The Dockerfile passes a
 * Dockerfile linter (dockerfile-utils, the validator behind VS Code's Dockerfile support: syntax,
 * flags, durations, ports, deprecated or repeated instructions) and is parsed (dockerfile-ast) and
 * held to its invariants; the compose file is read as YAML; the systemd unit passes
 * `systemd-analyze verify`; the image's entrypoint script runs here as it runs in the image.
 */
import fs from 'node:fs'
import { networkInterfaces } from 'node:os'
import path from 'node:path'
import { DockerfileParser, type Instruction } from 'dockerfile-ast'
import { validate, ValidationSeverity } from 'dockerfile-utils'
import { execa } from 'execa'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import YAML from 'yaml'
import { RESTORE_FAILED_EXIT_CODE, RESTORE_STAGED_EXIT_CODE } from '../../server/serve.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { freePort } from '../helpers/server.js'
import { tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 120_000 })

const deployFile = (name: string) => path.join(PROJECT_ROOT, 'deploy', name)
const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8')

describe('deploy/Dockerfile', () => {
  const text = fs.readFileSync(deployFile('Dockerfile'), 'utf8')
  const dockerfile = DockerfileParser.parse(text)
  const instructions = dockerfile.getInstructions()
  const froms = dockerfile.getFROMs()
  /** Whether an instruction is in the final stage: the image that runs. */
  const inFinal = (i: Instruction) => i.getRange().start.line >= froms.at(-1)!.getRange().start.line
  const final = instructions.filter(inFinal)
  const args = (i: Instruction) => i.getArgumentsContent() ?? ''
  const keyword = (name: string) => final.filter((i) => i.getKeyword() === name)

  it('passes the Dockerfile linter with every check an error, and the linter sees a broken copy', () => {
    const strict = {
      deprecatedMaintainer: ValidationSeverity.ERROR,
      directiveCasing: ValidationSeverity.ERROR,
      emptyContinuationLine: ValidationSeverity.ERROR,
      instructionCasing: ValidationSeverity.ERROR,
      instructionCmdMultiple: ValidationSeverity.ERROR,
      instructionEntrypointMultiple: ValidationSeverity.ERROR,
      instructionHealthcheckMultiple: ValidationSeverity.ERROR,
      instructionJSONInSingleQuotes: ValidationSeverity.ERROR,
      instructionWorkdirRelative: ValidationSeverity.ERROR,
    }
    expect(validate(text, strict).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([])
    const broken = text.replace('--interval=30s', '--interval=30').replace('EXPOSE 3000', 'EXPOSE http')
    expect(validate(broken, strict).map((d) => d.message)).toEqual(['Invalid containerPort: http', 'time: missing unit in duration 30'])
  })

  it('builds from Node 20 images, never `latest`', () => {
    expect(froms.length).toBeGreaterThan(0)
    for (const from of froms) {
      expect(from.getImageName()).toBe('node')
      expect(from.getImageTag(), args(from)).toMatch(/^20[.-]/)
    }
  })

  it('runs as a non-root user, set before the command', () => {
    const users = keyword('USER')
    expect(users).toHaveLength(1)
    expect(args(users[0]!)).not.toMatch(/^(root|0)(:|$)/)
    const userLine = users[0]!.getRange().start.line
    for (const start of [...keyword('CMD'), ...keyword('ENTRYPOINT')]) expect(start.getRange().start.line).toBeGreaterThan(userLine)
  })

  it('keeps its data in the /data volume, which LECTERN_DATA_DIR names', () => {
    expect(keyword('VOLUME').map(args).join(' ')).toContain('/data')
    expect(keyword('ENV').map(args).join(' ')).toMatch(/LECTERN_DATA_DIR=\/data/)
  })

  it('checks its health on /api/ready', () => {
    const checks = keyword('HEALTHCHECK')
    expect(checks).toHaveLength(1)
    expect(args(checks[0]!)).toContain('/api/ready')
  })

  it('installs production dependencies only, from the lockfile', () => {
    const runs = instructions.filter((i) => i.getKeyword() === 'RUN').map(args).join('\n')
    expect(runs).toMatch(/npm ci\b/)
    expect(runs).toMatch(/npm prune --omit=dev|npm ci --omit=dev/)
    expect(runs).not.toMatch(/npm install\b/)
  })

  it('installs git (clones) and chromium (rendered websites) unless INSTALL_CHROMIUM=false, as the README says', () => {
    const runs = keyword('RUN').map(args).join('\n')
    expect(runs).toMatch(/apt-get install[^\n]*\bgit\b/)
    expect(runs).toMatch(/if \[ "\$INSTALL_CHROMIUM" = "true" \]; then apt-get install [^\n]*chromium/)
    expect(keyword('ARG').map(args)).toContain('INSTALL_CHROMIUM=true')
    expect(readme).toContain('INSTALL_CHROMIUM=false')
  })

  it('copies only paths that exist, and starts through the entrypoint script', () => {
    const fromContext = dockerfile.getCOPYs().filter((copy) => !copy.getFlags().some((flag) => flag.getName() === 'from'))
    expect(fromContext.length).toBeGreaterThan(0)
    for (const copy of fromContext) {
      const sources = copy.getArguments().slice(0, -1).map((a) => a.getValue())
      for (const source of sources) expect(fs.existsSync(path.join(PROJECT_ROOT, source)), source).toBe(true)
    }
    expect(args(keyword('ENTRYPOINT')[0]!)).toContain('/app/deploy/docker-entrypoint.sh')
    expect(keyword('COPY').map(args)).toContain('deploy/docker-entrypoint.sh ./deploy/docker-entrypoint.sh')
  })

  it('puts every path the package publishes into the image (the oclif manifest too)', () => {
    const { files } = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { files: string[] }
    const fromBuild = dockerfile
      .getCOPYs()
      .filter(inFinal)
      .filter((copy) => copy.getFlags().some((flag) => flag.getName() === 'from' && flag.getValue() === 'build'))
      .map((copy) => copy.getArguments()[0]!.getValue())
    expect(files).toContain('oclif.manifest.json')
    for (const file of files) expect(fromBuild, file).toContain(`/app/${file}`)
  })
})

describe('deploy/docker-compose.yml', () => {
  it('builds the Dockerfile, keeps /data in a named volume and restarts the service', () => {
    const compose = YAML.parse(fs.readFileSync(deployFile('docker-compose.yml'), 'utf8')) as {
      services: Record<string, { build: { context: string; dockerfile: string }; restart: string; volumes: string[] }>
      volumes: Record<string, unknown>
    }
    const service = compose.services.lectern!
    expect(fs.existsSync(path.join(PROJECT_ROOT, 'deploy', service.build.context, service.build.dockerfile))).toBe(true)
    expect(['always', 'unless-stopped', 'on-failure']).toContain(service.restart)
    const volume = service.volumes.find((v) => v.endsWith(':/data'))!
    expect(Object.keys(compose.volumes)).toContain(volume.split(':')[0])
  })
})

describe('deploy/lectern.service', () => {
  const unit = fs.readFileSync(deployFile('lectern.service'), 'utf8')

  it('passes systemd-analyze verify', async () => {
    // verify needs ExecStart's binary to exist: a stand-in at a path of the test's own.
    const dir = await tmpDir('lectern-unit-')
    const binary = path.join(dir, 'lectern')
    fs.writeFileSync(binary, '#!/bin/sh\nexec node "$LECTERN_ROOT/bin/run.js" "$@"\n', { mode: 0o755 })
    fs.writeFileSync(path.join(dir, 'lectern.service'), unit.replaceAll('/usr/local/bin/lectern', binary))
    const verified = await execa('systemd-analyze', ['verify', path.join(dir, 'lectern.service')], { reject: false })
    expect(verified.exitCode, verified.stderr).toBe(0)
    // verify only warns about a line it cannot parse: any output is a mistake in the unit.
    expect(verified.stderr).toBe('')
  })

  it('runs serve unsupervised, restarts on failure, and treats the staged-restore exit as a restart', () => {
    expect(unit).toMatch(/^ExecStart=\/usr\/local\/bin\/lectern serve --no-supervise$/m)
    expect(unit).toMatch(/^Restart=on-failure$/m)
    expect(unit).toContain(`\nSuccessExitStatus=${RESTORE_STAGED_EXIT_CODE}\n`)
    expect(unit).toContain(`\nRestartForceExitStatus=${RESTORE_STAGED_EXIT_CODE}\n`)
    // A failed staged restore stays a failure (OnFailure= alerts), restarted by Restart=on-failure.
    expect(unit).not.toMatch(new RegExp(`ExitStatus=.*\\b${RESTORE_FAILED_EXIT_CODE}\\b`))
    expect(readme).toContain(`exit code ${RESTORE_FAILED_EXIT_CODE}`)
  })
})

describe('deploy/docker-entrypoint.sh', () => {
  const entrypoint = deployFile('docker-entrypoint.sh')
  /** The container's environment: no LECTERN_* of the test runner leaks in. */
  const containerEnv = (extra: Record<string, string>) => ({ PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...extra })

  it('serves by default on all interfaces, with JSON logs, and stops cleanly on SIGTERM', async () => {
    const dataDir = await tmpDir('lectern-data-')
    const port = await freePort()
    const server = execa(entrypoint, [], { env: containerEnv({ LECTERN_DATA_DIR: dataDir, PORT: String(port) }), extendEnv: false, reject: false, cwd: dataDir })
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
    const dataDir = await tmpDir('lectern-data-')
    const created = await execa(entrypoint, ['keys', 'create', '--name', 'ci', '--json'], { env: containerEnv({ LECTERN_DATA_DIR: dataDir }), extendEnv: false })
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'ci' })
    const read = async (extra: Record<string, string>) => {
      const result = await execa(entrypoint, ['config', 'get', '--json'], { env: containerEnv({ LECTERN_DATA_DIR: dataDir, ...extra }), extendEnv: false })
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
