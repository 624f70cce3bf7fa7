/**
 * deploy/: what can be checked without Docker or a running systemd. The Dockerfile passes a
 * Dockerfile linter (dockerfile-utils, the validator behind VS Code's Dockerfile support: syntax,
 * flags, durations, ports, deprecated or repeated instructions) and is parsed (dockerfile-ast) and
 * held to its invariants; the compose files and the Kubernetes manifests are read as YAML and
 * held to theirs, and the nginx site of the replicas passes `nginx -t`; the systemd unit passes
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
    expect(service.image).toBe(`lectern:${version}`)
    expect(service.build).toBeUndefined()
    expect(['always', 'unless-stopped', 'on-failure']).toContain(service.restart)
    const volume = service.volumes.find((v) => v.endsWith(':/data'))!
    expect(Object.keys(compose.volumes)).toContain(volume.split(':')[0])
  })
})

const version = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version

describe('deploy/docker-compose.postgres.yml', () => {
  interface Service {
    image: string
    restart?: string
    deploy?: { replicas?: number }
    depends_on?: Record<string, { condition: string }> | string[]
    environment?: Record<string, string>
    ports?: string[]
    volumes?: string[]
    healthcheck?: { test: string[] }
  }
  const compose = YAML.parse(fs.readFileSync(deployFile('docker-compose.postgres.yml'), 'utf8')) as { services: Record<string, Service>; volumes: Record<string, unknown> }
  const { postgres, lectern, nginx } = compose.services

  it('runs three replicas of the release image on one PostgreSQL, each given the URL and the one key, or refusing to start without them', () => {
    expect(lectern!.image).toBe(`lectern:${version}`)
    expect(lectern!.deploy?.replicas).toBe(3)
    expect(lectern!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } })
    expect(lectern!.environment!.DATABASE_URL).toBe('postgres://lectern:${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}@postgres:5432/lectern')
    expect(lectern!.environment!.LECTERN_SECRET_KEY).toMatch(/^\$\{LECTERN_SECRET_KEY:\?/)
    // Only nginx publishes a port, on loopback.
    expect(lectern!.ports).toBeUndefined()
    expect(nginx!.ports).toEqual(['127.0.0.1:3000:80'])
    expect(postgres!.image).toMatch(/^postgres:\d+/)
    expect(postgres!.healthcheck!.test).toContain('pg_isready')
    expect(Object.keys(compose.volumes)).toContain(postgres!.volumes![0]!.split(':')[0])
  })

  it("mounts deploy/nginx-replicas.conf as nginx's site, which Debian's nginx accepts", async () => {
    expect(nginx!.volumes).toEqual(['./nginx-replicas.conf:/etc/nginx/conf.d/default.conf:ro'])
    const site = fs.readFileSync(deployFile('nginx-replicas.conf'), 'utf8')
    expect(site).toContain('server lectern:3000')
    // `nginx -t` resolves the upstream's name, which only Compose's network knows: checked with a loopback address in its place.
    const dir = await tmpDir('lectern-nginx-')
    fs.writeFileSync(path.join(dir, 'site.conf'), site.replace('server lectern:3000', 'server 127.0.0.1:3000').replace('listen 80;', 'listen 127.0.0.1:8080;'))
    fs.writeFileSync(
      path.join(dir, 'nginx.conf'),
      `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  include ${dir}/site.conf;\n}\n`,
    )
    const tested = await execa('/usr/sbin/nginx', ['-t', '-q', '-p', dir, '-c', path.join(dir, 'nginx.conf')], { reject: false })
    expect(tested.exitCode, tested.stderr).toBe(0)
  })
})

describe('deploy/kubernetes/lectern.yaml', () => {
  interface Probe {
    httpGet: { path: string; port: string }
  }
  interface Manifest {
    kind: string
    metadata: { name: string }
    spec: {
      replicas?: number
      selector: { matchLabels?: Record<string, string> } & Record<string, unknown>
      template?: {
        metadata: { labels: Record<string, string> }
        spec: {
          securityContext: { runAsNonRoot: boolean; runAsUser: number }
          containers: Array<{
            image: string
            ports: Array<{ name: string; containerPort: number }>
            env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }>
            readinessProbe: Probe
            livenessProbe: Probe
          }>
        }
      }
      ports?: Array<{ targetPort: string }>
      minAvailable?: number
    }
  }
  const manifests = YAML.parseAllDocuments(fs.readFileSync(deployFile('kubernetes/lectern.yaml'), 'utf8')).map((doc) => doc.toJS() as Manifest)
  const byKind = (kind: string) => manifests.find((m) => m.kind === kind)!

  it('runs three replicas of the release image as a non-root user, the database URL and the key from a Secret', () => {
    const deployment = byKind('Deployment')
    expect(deployment.spec.replicas).toBe(3)
    const pod = deployment.spec.template!.spec
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 })
    const [container] = pod.containers
    expect(container!.image).toBe(`lectern:${version}`)
    const env = Object.fromEntries(container!.env.map((e) => [e.name, e.valueFrom?.secretKeyRef ?? e.value]))
    expect(env.DATABASE_URL).toEqual({ name: 'lectern', key: 'database-url' })
    expect(env.LECTERN_SECRET_KEY).toEqual({ name: 'lectern', key: 'secret-key' })
  })

  it('is ready on /api/ready and alive on /api/health, and its Service reaches the pods it runs', () => {
    const deployment = byKind('Deployment')
    const [container] = deployment.spec.template!.spec.containers
    expect(container!.readinessProbe.httpGet.path).toBe('/api/ready')
    expect(container!.livenessProbe.httpGet.path).toBe('/api/health')
    expect(container!.ports.map((p) => p.name)).toContain(container!.readinessProbe.httpGet.port)
    const labels = deployment.spec.template!.metadata.labels
    expect(deployment.spec.selector.matchLabels).toEqual(labels)
    const service = byKind('Service')
    expect(service.spec.selector).toEqual(labels)
    expect(container!.ports.map((p) => p.name)).toContain(service.spec.ports![0]!.targetPort)
    expect(byKind('PodDisruptionBudget').spec).toMatchObject({ minAvailable: 2, selector: { matchLabels: labels } })
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
