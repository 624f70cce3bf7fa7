/**
 * deploy/: what can be checked without Docker or a running systemd. The Dockerfile passes a
 * Dockerfile linter (dockerfile-utils, the validator behind VS Code's Dockerfile support: syntax,
 * flags, durations, ports, deprecated or repeated instructions) and is parsed (dockerfile-ast) and
 * held to its invariants; the compose file is read as YAML; the systemd unit passes
 * `systemd-analyze verify`. The image's entrypoint script runs from the release tarball
 * (test/release/release.test.ts), as it runs in the image.
 */
import fs from 'node:fs'
import path from 'node:path'
import { DockerfileParser, type Instruction } from 'dockerfile-ast'
import { validate, ValidationSeverity } from 'dockerfile-utils'
import { execa } from 'execa'
import { describe, expect, it, vi } from 'vitest'
import YAML from 'yaml'
import { RESTORE_FAILED_EXIT_CODE, RESTORE_STAGED_EXIT_CODE } from '../../server/serve.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
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

  it('builds on Debian 12 (never `latest`) from the release tarball, with no npm, Node image or compiler', () => {
    expect(froms).toHaveLength(1)
    expect(froms[0]!.getImageName()).toBe('debian')
    expect(froms[0]!.getImageTag()).toBe('bookworm-slim')
    const runs = keyword('RUN').map(args).join('\n')
    expect(runs).not.toMatch(/\bnpm\b|\bnode-gyp\b|\bg\+\+|\bmake\b|python3/)
    const version = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version
    expect(keyword('ARG').map(args)).toContain(`LECTERN_VERSION=${version}`)
    expect(keyword('ADD').map(args)).toEqual(['lectern-${LECTERN_VERSION}-linux-x64.tar.gz /opt/'])
    expect(runs).toContain('ln -s "/opt/lectern-${LECTERN_VERSION}-linux-x64" /opt/lectern')
  })

  it('sends only the release tarball as the build context', () => {
    expect(fs.readFileSync(deployFile('Dockerfile.dockerignore'), 'utf8').split('\n').filter((line) => line && !line.startsWith('#'))).toEqual(['*', '!lectern-*-linux-x64.tar.gz'])
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

  it('installs git (clones) and chromium (rendered websites) unless INSTALL_CHROMIUM=false, as the README says', () => {
    const runs = keyword('RUN').map(args).join('\n')
    expect(runs).toMatch(/apt-get install[^\n]*\bgit\b/)
    expect(runs).toMatch(/if \[ "\$INSTALL_CHROMIUM" = "true" \]; then apt-get install [^\n]*chromium/)
    expect(keyword('ARG').map(args)).toContain('INSTALL_CHROMIUM=true')
    expect(readme).toContain('INSTALL_CHROMIUM=false')
  })

  it('starts through the entrypoint script of the release, on the bundled runtime', () => {
    expect(args(keyword('ENTRYPOINT')[0]!)).toContain('/opt/lectern/deploy/docker-entrypoint.sh')
    expect(args(keyword('HEALTHCHECK')[0]!)).toContain('/opt/lectern/node/bin/node')
  })
})

describe('deploy/docker-compose.yml', () => {
  it('runs the image of the release (built or loaded, never built by npm), keeps /data in a named volume and restarts the service', () => {
    const compose = YAML.parse(fs.readFileSync(deployFile('docker-compose.yml'), 'utf8')) as {
      services: Record<string, { build?: unknown; image: string; restart: string; volumes: string[] }>
      volumes: Record<string, unknown>
    }
    const service = compose.services.lectern!
    const version = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version
    expect(service.image).toBe(`lectern:${version}`)
    expect(service.build).toBeUndefined()
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
    fs.writeFileSync(path.join(dir, 'lectern.service'), unit.replaceAll('/opt/lectern/bin/lectern', binary))
    const verified = await execa('systemd-analyze', ['verify', path.join(dir, 'lectern.service')], { reject: false })
    expect(verified.exitCode, verified.stderr).toBe(0)
    // verify only warns about a line it cannot parse: any output is a mistake in the unit.
    expect(verified.stderr).toBe('')
  })

  it('runs serve unsupervised, restarts on failure, and treats the staged-restore exit as a restart', () => {
    expect(unit).toMatch(/^ExecStart=\/opt\/lectern\/bin\/lectern serve --no-supervise --config \/etc\/lectern\/lectern\.yaml$/m)
    expect(unit).toMatch(/^UMask=0077$/m)
    expect(unit).toMatch(/^Restart=on-failure$/m)
    expect(unit).toContain(`\nSuccessExitStatus=${RESTORE_STAGED_EXIT_CODE}\n`)
    expect(unit).toContain(`\nRestartForceExitStatus=${RESTORE_STAGED_EXIT_CODE}\n`)
    // A failed staged restore stays a failure (OnFailure= alerts), restarted by Restart=on-failure.
    expect(unit).not.toMatch(new RegExp(`ExitStatus=.*\\b${RESTORE_FAILED_EXIT_CODE}\\b`))
    expect(readme).toContain(`exit code ${RESTORE_FAILED_EXIT_CODE}`)
  })
})
