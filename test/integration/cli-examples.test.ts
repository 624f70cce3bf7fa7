/**
 * Every command line the docs show runs, exactly as written: each command's `--help` examples
 * and every `lectern` line of the README (the CLI table and the shell code blocks), through the
 * real binary in a sandbox (test/helpers/examples.ts) that holds what a reader's install would:
 * a data directory with libraries, keys, connections, a license and a backup configuration;
 * github.com repositories served from local clones (git's url.<base>.insteadOf); stand-ins for
 * S3 (s3rver), Ollama, an OpenAI-compatible server, Confluence and Notion; the public web hosts
 * the examples fetch over https:// (docs.example.com, petstore3.swagger.io...), reached the way
 * a site behind a proxy reaches them: HTTPS_PROXY names a forward proxy bridged into the
 * sandbox, whose CONNECT tunnels lead to HTTPS stand-ins with a test CA that Node trusts
 * through NODE_EXTRA_CA_CERTS and Chromium through its CACertificates policy in /etc; the
 * files the examples name. A new command without a runnable example, or an example that stops working,
 * fails here.
 */
import { cp, mkdir, readFile, readdir, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Config } from '@oclif/core'
// s3rver ships no types.
// @ts-expect-error untyped module
import S3rver from 's3rver'
import { execa } from 'execa'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { openStore } from '../../src/store/index.js'
import { ollamaStandIn } from '../airgap/ollama-standin.js'
import { PROJECT_ROOT, runCli } from '../helpers/cli.js'
import { copySandbox, makeSandbox, runInSandbox, type Sandbox, type SandboxRun } from '../helpers/examples.js'
import { git, makeGitRepo } from '../helpers/git.js'
import { PETSHOP_YAML } from '../helpers/openapi-fixtures.js'
import { codeBlocks, codeSpans, readmeSection, runsLectern, shellExamples, tableRows } from '../helpers/readme.js'
import { startPostgres } from '../helpers/postgres.js'
import { createDatabase } from '../helpers/stores.js'
import { initDataDir, suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { widgetsFiles } from '../helpers/widgets-repo.js'
import { startForwardProxy } from '../helpers/forward-proxy.js'
import { chromiumCaPolicy, createTestCa } from '../helpers/tls.js'
import { startWebStandIns, type WebStandIns } from '../helpers/web-standins.js'
import { block, confluenceStandIn, notionStandIn, rich, textBlock } from '../helpers/workspace-standins.js'

// Each example is a process or two; independent sandboxes let a few run at once.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 600_000, maxConcurrency: 3 })

const defer = suiteTeardown()

/** Hosts the examples name, all served inside the sandbox. */
const HOSTS = ['lectern.internal', 'db.internal', 'docs.example.com', 'app-docs.example.com', 'api.example.com', 'petstore3.swagger.io', 'gitlab.example.com', 'acme.atlassian.net']

/** The forward proxy's port inside the sandbox, and where the sandbox keeps the test CA. */
const PROXY_PORT = 3128
const CA_FILE = '/etc/ssl/certs/lectern-test-ca.pem'

const SECRETS = {
  ATLASSIAN_TOKEN: 'dc-pat-NjQ4MzQ1Nzg5MDEy',
  NOTION_TOKEN: 'secret_ntn_4b7e2f0a9d',
  GITLAB_TOKEN: 'glpat-example-token',
  OPENAI_API_KEY: 'sk-local-test',
  AWS_SECRET: 'S3RVER',
}
const NOTION_PAGE = '1f2e3d4c5b6a79881f2e3d4c5b6a7988'
const ADMIN_PASSWORD = 'correct horse battery staple'
const ARCHIVE = 'lectern-backup-2026-06-12T02-00-00.tar.gz'

interface Scenario extends SandboxRun {
  /** The on-premise install with libraries, keys and connections; the cloud; or an install as its first `lectern serve` left it. */
  world?: 'onprem' | 'cloud' | 'fresh'
  /** Done to the example's own copy of its world before it runs; what it returns is added to the example's environment. */
  prepare?: (sandbox: Sandbox) => Promise<void | Record<string, string>>
  /** What else the example must have done, beyond exiting 0. */
  check?: (out: { stdout: string; stderr: string }, sandbox: Sandbox) => void | Promise<void>
}

const mcpSession = [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'examples', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'resolve-library-id', arguments: { libraryName: 'widgets', query: 'widgets' } } },
]
  .map((m) => JSON.stringify(m))
  .join('\n')

const serverStopsCleanly = (url: string): Scenario => ({ stop: { url, signal: 'SIGTERM' } })

let web: WebStandIns
/** An example that fetches https:// web sources through the proxy; `urls` must have reached the stand-ins, `chromium` in Chromium. */
const throughProxy = (urls: string[], chromium = false): Scenario => ({
  env: { HTTPS_PROXY: `http://127.0.0.1:${PROXY_PORT}`, NODE_EXTRA_CA_CERTS: CA_FILE },
  check: () => {
    const asked = web.requests.filter((r) => !chromium || r.userAgent.includes('HeadlessChrome')).map((r) => r.url)
    expect(asked).toEqual(expect.arrayContaining(urls))
  },
})

/** How each example runs, when it needs more than the on-premise install as it is. */
const SCENARIOS: Record<string, Scenario> = {
  'lectern add openapi https://petstore3.swagger.io/api/v3/openapi.json --wait': throughProxy(['https://petstore3.swagger.io/api/v3/openapi.json']),
  'lectern add llmstxt https://docs.example.com/llms.txt --wait': throughProxy(['https://docs.example.com/llms.txt', 'https://docs.example.com/install.md']),
  'lectern add website https://docs.example.com/guide/ --wait': throughProxy(['https://docs.example.com/guide/', 'https://docs.example.com/guide/intro.html']),
  'lectern add website https://docs.example.com/guide/intro.html --base-url https://docs.example.com/': throughProxy([]),
  'lectern add website https://app-docs.example.com/ --render --wait': throughProxy(['https://app-docs.example.com/'], true),
  'lectern add https://github.com/fastify/fastify --wait': {
    world: 'fresh',
    check: ({ stdout }) => expect(stdout).toMatch(/^\/fastify\/fastify is ready: \d+ snippets? from \d+ pages?\. Ask it: lectern docs \/fastify\/fastify "<your question>"$/m),
  },
  'lectern serve': serverStopsCleanly('http://127.0.0.1:3000/api/ready'),
  'lectern audit --since 2026-12-01 --jsonl > lectern-audit.jsonl': {
    // The install's setup above, as the export a SIEM takes in: oldest first, no key in it.
    check: async (_, sandbox) => {
      const text = await readFile(path.join(sandbox.home, 'lectern-audit.jsonl'), 'utf8')
      const events = text.trimEnd().split('\n').map((line) => JSON.parse(line) as { action: string; actor: { kind: string }; at: string })
      expect(events.filter((e) => e.action === 'key.created').length).toBeGreaterThanOrEqual(4)
      expect(events.map((e) => e.action)).toContain('backup.created')
      expect(events.every((e) => e.actor.kind === 'cli')).toBe(true)
      expect(events.map((e) => e.at)).toEqual(events.map((e) => e.at).sort())
      expect(text).not.toContain('lct_')
    },
  },
  'lectern serve --port 8080 --host 0.0.0.0 --data-dir /var/lib/lectern': serverStopsCleanly('http://127.0.0.1:8080/api/ready'),
  'lectern serve --config /etc/lectern/lectern.yaml --log-format json': {
    ...serverStopsCleanly('http://127.0.0.1:8080/api/ready'),
    // Only this example has the file: every command reads /etc/lectern/lectern.yaml when it exists.
    prepare: async (sandbox) => {
      await mkdir(path.join(sandbox.etc, 'lectern'), { recursive: true })
      await writeFile(path.join(sandbox.etc, 'lectern', 'lectern.yaml'), codeBlocks('yaml', readmeSection('Configuration'))[0])
    },
    check: ({ stdout }) => expect(stdout.split('\n')[0]).toMatch(/^\{/),
  },
  'LECTERN_RATE_LIMIT_ANONYMOUS=0 lectern serve --log-level debug': serverStopsCleanly('http://127.0.0.1:3000/api/ready'),
  'lectern serve --workers 2': {
    ...serverStopsCleanly('http://127.0.0.1:3000/api/ready'),
    check: ({ stdout }) => {
      const lines = stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { worker?: number; msg: string })
      expect(lines.filter((l) => l.msg === 'worker stopped').map((l) => l.worker).sort()).toEqual([1, 2])
    },
  },
  'lectern jobs --watch': {
    stop: { output: true, signal: 'SIGINT' },
    check: ({ stdout }) => {
      expect(stdout).toMatch(/^--- \d{4}-\d\d-\d\dT/)
      expect(stdout).not.toContain('\x1b')
    },
  },
  'lectern jobs cancel 4': {
    prepare: queueJob4,
    check: ({ stdout }) => expect(stdout).toBe('Cancelled job 4 of /acme/widgets.'),
  },
  'lectern libraries access /acme/widgets --grant bob@example.com': {
    prepare: async (sandbox) => {
      const restricted = await runCli(['libraries', 'access', '/acme/widgets', '--restrict', '--user', 'alice@example.com', '--data-dir', dataOf(sandbox)], runEnv)
      expect(restricted.exitCode, restricted.stderr).toBe(0)
    },
    check: ({ stdout }) => expect(stdout).toBe('/acme/widgets: restricted; who can access: alice@example.com, bob@example.com.'),
  },
  "lectern libraries access '/acme/*' --restrict --group acme-engineering": {
    check: ({ stdout }) => expect(stdout).toMatch(/^\/acme\/\*, governing \d+ librar(y|ies) without a rule of their own: restricted; who can access: group acme-engineering\.$/),
  },
  "lectern libraries access '/acme/*' --grant alice@example.com": {
    prepare: async (sandbox) => {
      const restricted = await runCli(['libraries', 'access', '/acme/*', '--restrict', '--group', 'acme-engineering', '--data-dir', dataOf(sandbox)], runEnv)
      expect(restricted.exitCode, restricted.stderr).toBe(0)
    },
    check: ({ stdout }) => expect(stdout).toContain('who can access: alice@example.com, group acme-engineering.'),
  },
  "lectern libraries access '/acme/payments/*' --everyone": { check: ({ stdout }) => expect(stdout).toMatch(/^\/acme\/payments\/\*, governing \d+ librar(y|ies) without a rule of their own: open to everyone/) },
  "lectern libraries access '/acme/*' --default": { check: ({ stdout }) => expect(stdout).toContain('/acme/* has no rule') },
  'lectern gitops sync': { check: ({ stdout }) => expect(stdout).toMatch(/skip\s+\/acme\/widgets\s+git\s+\/acme\/widgets was added by hand[\s\S]*create\s+\/acme\/gizmos\s+git[\s\S]*Synced \(manifest commit [0-9a-f]{12}\): created 1, re-indexed 0, unchanged 0, skipped 1, pruned 0, failed 0\./) },
  'lectern gitops sync --dry-run': { check: ({ stdout }) => expect(stdout).toContain('Dry run, nothing changed') },
  'lectern gitops sync --force --json': { check: ({ stdout }) => expect(JSON.parse(stdout)).toMatchObject({ created: 1, skipped: 1, failed: 0, upToDate: false }) },
  'lectern gitops status': { check: ({ stdout }) => expect(stdout).toContain('Manifest: repos.yaml in https://github.com/acme/lectern-sources (default branch)') },
  'lectern gitops config': { check: ({ stdout }) => expect(stdout).toContain('syncs on demand only; pruning off') },
  "lectern gitops config --enabled --schedule '*/15 * * * *'": { check: ({ stdout }) => expect(stdout).toContain('automatic syncs at start and on */15 * * * * (UTC)') },
  'lectern libraries access /acme/widgets --json': { check: ({ stdout }) => expect(JSON.parse(stdout)).toMatchObject({ libraryId: '/acme/widgets', access: 'default', effective: 'everyone', users: [] }) },
  'lectern jobs cancel 4 --json': {
    prepare: queueJob4,
    check: ({ stdout }) => expect(JSON.parse(stdout)).toMatchObject({ id: 4, state: 'failed', errorCode: 'cancelled', libraryId: '/acme/widgets' }),
  },
  'lectern mcp --data-dir /var/lib/lectern': {
    stdin: `${mcpSession}\n`,
    check: ({ stdout }) => expect(stdout).toContain('/acme/widgets'),
  },
  'lectern admin create ops@example.com': { stdin: `${ADMIN_PASSWORD}\n` },
  // Accounts and teamspaces: the cloud's users alice, bob (a developer of Acme) and carol.
  'lectern users create dana@example.com': { world: 'cloud', stdin: `${ADMIN_PASSWORD}\n`, check: ({ stdout }) => expect(stdout).toContain('personal space dana@example.com (plan free)') },
  'cat dana-password.txt | lectern users create dana@example.com --json': { world: 'cloud' },
  'lectern teams create Platform --owner alice@example.com --plan pro': { world: 'cloud' },
  'lectern teams create Research --owner alice@example.com --plan enterprise --json': { world: 'cloud' },
  'lectern teams list': { world: 'cloud', check: ({ stdout }) => expect(stdout).toMatch(/Acme\s+teamspace\s+pro\s+alice@example.com\s+2/) },
  'lectern teams list --json': { world: 'cloud' },
  'lectern teams members Acme': { world: 'cloud', check: ({ stdout }) => expect(stdout).toMatch(/bob@example.com\s+developer/) },
  'lectern teams members Acme --json': { world: 'cloud' },
  'lectern teams add-member Acme carol@example.com --role developer': { world: 'cloud' },
  'lectern teams add-member Acme carol@example.com --role admin --json': { world: 'cloud' },
  'lectern teams remove-member Acme bob@example.com': { world: 'cloud', check: ({ stdout }) => expect(stdout).toBe('Removed bob@example.com from Acme; revoked 1 key.') },
  'lectern teams remove-member Acme bob@example.com --json': { world: 'cloud' },
  'lectern teams delete Acme --yes': { world: 'cloud', check: ({ stdout }) => expect(stdout).toBe('Deleted the teamspace Acme.') },
  'lectern teams delete Acme --yes --json': { world: 'cloud', check: ({ stdout }) => expect(JSON.parse(stdout)).toEqual({ removed: 'Acme', libraries: [] }) },
  'lectern teams invitations Acme': { world: 'cloud', prepare: inviteDave, check: ({ stdout }) => expect(stdout).toMatch(/dave@example.com\s+developer/) },
  'lectern teams invitations Acme --cancel dave@example.com': {
    world: 'cloud',
    prepare: inviteDave,
    check: async ({ stdout }, sandbox) => {
      expect(stdout).toBe('Cancelled the invitation of dave@example.com to Acme.')
      const store = await openStore(dataOf(sandbox))
      try {
        expect(await store.invitations.pending((await store.teams.byName('Acme'))!.id)).toEqual([])
      } finally {
        await store.close()
      }
    },
  },
  'lectern teams invitations Acme --json': { world: 'cloud', prepare: inviteDave, check: ({ stdout }) => expect(JSON.parse(stdout)).toEqual([expect.objectContaining({ email: 'dave@example.com', role: 'developer' })]) },
  'lectern teams plan set Acme enterprise': { world: 'cloud' },
  'lectern teams plan set Acme pro --json': { world: 'cloud' },
  'lectern keys create --name cursor-bob --user bob@example.com --team Acme': { world: 'cloud' },
  'lectern libraries remove /acme/widgets': { tty: true, stdin: 'y\n' },
  'lectern connections add git --name gitea-ssh --host ssh://git.acme.internal:2222 --ssh-key-file deploy_key --known-hosts-file known_hosts': {
    prepare: async (sandbox) => {
      await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'lectern-deploy', '-f', path.join(sandbox.home, 'deploy_key')])
      await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'host', '-f', path.join(sandbox.home, 'host_key')])
      const hostKey = (await readFile(path.join(sandbox.home, 'host_key.pub'), 'utf8')).split(' ').slice(0, 2).join(' ')
      await writeFile(path.join(sandbox.home, 'known_hosts'), `[git.acme.internal]:2222 ${hostKey}\n`)
    },
    check: async ({ stdout }, sandbox) => {
      const publicKey = (await readFile(path.join(sandbox.home, 'deploy_key.pub'), 'utf8')).trim()
      expect(stdout).toContain(`Stored git connection "gitea-ssh" for ssh://git.acme.internal:2222.`)
      expect(stdout).toContain(publicKey)
    },
  },
  'lectern add ssh://git@git.acme.internal:2222/acme/payments.git': {
    // The README's connection first; the add queues the clone (no SSH host answers in the sandbox).
    prepare: async (sandbox) => {
      await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(sandbox.home, 'deploy_key')])
      const store = await openStore(dataOf(sandbox))
      try {
        const hostKey = (await readFile(path.join(sandbox.home, 'deploy_key.pub'), 'utf8')).split(' ').slice(0, 2).join(' ')
        await store.connections.create({ teamPk: null }, { kind: 'git', name: 'gitea-ssh', baseUrl: 'ssh://git.acme.internal:2222', token: await readFile(path.join(sandbox.home, 'deploy_key'), 'utf8'), knownHosts: `[git.acme.internal]:2222 ${hostKey}\n`, publicKey: hostKey })
      } finally {
        await store.close()
      }
    },
    check: ({ stdout, stderr }) => expect(stdout + stderr).toContain('/acme/payments'),
  },
  'lectern connections webhook gitlab --generate': {
    prepare: gitConnections(),
    check: async ({ stdout, stderr }, sandbox) => {
      const { gitlab } = await webhookState(sandbox)
      expect(gitlab).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(stderr).toContain('shown this once')
      expect(stdout.trim()).toBe(gitlab)
    },
  },
  'printf %s "$GITHUB_WEBHOOK_SECRET" | lectern connections webhook ghes --secret-stdin': {
    env: { GITHUB_WEBHOOK_SECRET: 'ghes-webhook-secret-0123456789' },
    prepare: gitConnections(),
    check: async ({ stdout }, sandbox) => {
      expect((await webhookState(sandbox)).ghes).toBe('ghes-webhook-secret-0123456789')
      expect(stdout).not.toContain('ghes-webhook-secret')
    },
  },
  'lectern connections webhook gitlab --remove': {
    prepare: gitConnections('gitlab-webhook-secret-0123456789'),
    check: async (_out, sandbox) => expect((await webhookState(sandbox)).gitlab).toBeNull(),
  },
  [`lectern restore ~/.local/share/lectern/backups/${ARCHIVE}`]: { tty: true, stdin: 'y\n' },
  'lectern import next.json --force --url http://lectern.internal:3000 --key "$LECTERN_API_KEY"': {
    // The server answers to the name the example reaches it by (README "Names and origins").
    background: [{ command: 'LECTERN_ALLOWED_HOSTS=lectern.internal lectern serve --port 3000', readyUrl: 'http://127.0.0.1:3000/api/ready' }],
  },
  'lectern refresh /fastify/fastify --wait': {
    check: ({ stderr }) => expect(stderr).toMatch(/\/fastify\/fastify: /),
  },
  'lectern refresh /acme/widgets@v2.0.0 --force': {
    check: ({ stderr }) => expect(stderr).toContain('No server is running'),
  },
  'lectern eval questions.json --url http://lectern.internal:3000 --key "$LECTERN_API_KEY"': {
    // The server answers to the name the example reaches it by (README "Names and origins").
    background: [{ command: 'LECTERN_ALLOWED_HOSTS=lectern.internal lectern serve --port 3000', readyUrl: 'http://127.0.0.1:3000/api/ready' }],
    check: ({ stdout }) => expect(stdout).toMatch(/overall\s.*\b2\b/),
  },
  'lectern eval questions.json --misses': { check: ({ stdout }) => expect(stdout).toContain('/fastify/fastify') },
  'lectern eval questions.json --json > eval-report.json': {
    check: async (_, sandbox) => {
      const report = JSON.parse(await readFile(path.join(sandbox.home, 'eval-report.json'), 'utf8')) as { overall: { questions: number } }
      expect(report.overall.questions).toBe(2)
    },
  },
  'lectern export /vercel/next.js /facebook/react -o lectern-libraries.zip': { world: 'cloud' },
  'lectern export /vercel/next.js --json -o next.json': { world: 'cloud' },
  'lectern license issue --customer "Acme Corp" --offline --expires 2030-12-31 -o acme-license.json': { world: 'cloud' },
  'lectern license issue --public-key': { world: 'cloud' },
  'lectern search react "manage state with hooks" --json': { world: 'cloud' },
  // The install already has connections of these names.
  'printf %s "$ATLASSIAN_TOKEN" | lectern connections add confluence --name acme --site https://acme.atlassian.net --email me@acme.com --token-stdin': { world: 'fresh' },
  'lectern connections add notion --name ws --token-env NOTION_TOKEN': { world: 'fresh' },
  // Each into a database of its own on the PostgreSQL at db.internal:5432.
  [`LECTERN_SECRET_KEY=$(od -An -vtx1 /var/lib/lectern/secret.key | tr -d ' \\n') lectern migrate-store --to postgres://lectern@db.internal/lectern --data-dir /var/lib/lectern`]: {
    prepare: async () => void (await createDatabase(postgresUrl, 'lectern')),
    check: ({ stderr }) => expect(stderr).toMatch(/Copied \d+ rows in \d+ tables and 0 files into postgres:\/\/lectern@db\.internal\/lectern; every count and checksum matches/),
  },
  'lectern migrate-store --json': {
    env: { DATABASE_URL: 'postgres://lectern@db.internal/moved' },
    // The key as the replicas will be given it.
    prepare: async (sandbox) => {
      await createDatabase(postgresUrl, 'moved')
      return { LECTERN_SECRET_KEY: (await readFile(path.join(dataOf(sandbox), 'secret.key'))).toString('hex') }
    },
    check: ({ stdout }) => expect((JSON.parse(stdout) as { tables: Array<{ table: string; rows: number }> }).tables).toContainEqual(expect.objectContaining({ table: 'libraries', rows: 2 })),
  },
}

/** Where a sandbox's install keeps its data: the default data directory of its $HOME, as no /var/lib/lectern exists there. */
const dataOf = (sandbox: Sandbox) => path.join(sandbox.home, '.local', 'share', 'lectern')

let worlds: Record<'onprem' | 'cloud' | 'fresh', Sandbox>
let runEnv: Record<string, string>
let bridges: Array<{ port: number; target: number }>
/** The PostgreSQL the migrate-store examples copy into, as db.internal:5432 inside the sandbox. */
let postgresUrl: string

/** Examples as written: `<%= config.bin %> <%= command.id %>` is what a reader types. */
async function commandExamples(): Promise<Map<string, string[]>> {
  const config = await Config.load(PROJECT_ROOT)
  return new Map(
    config.commands.map((c) => {
      const id = c.id.replaceAll(':', ' ')
      const examples = (c.examples ?? []).map((e) => (typeof e === 'string' ? e : e.command).replaceAll('<%= config.bin %>', config.bin).replaceAll('<%= command.id %>', id))
      return [id, examples]
    }),
  )
}

/** The README's CLI table: command (first code span) -> its examples. */
function readmeCliRows(): Array<{ command: string; examples: string[] }> {
  return tableRows(readmeSection('CLI'), 'Command').map(([command, example]) => ({ command: codeSpans(command)[0], examples: codeSpans(example).filter(runsLectern) }))
}

async function makeRepo(remotes: string, id: string, files: Record<string, string | Buffer>, tags: string[] = []): Promise<void> {
  const [owner, name] = id.split('/')
  const { dir } = await makeGitRepo(files, { parent: path.join(remotes, owner), name, defer })
  for (const tag of tags) await git(['tag', tag], dir)
}

const docs = (title: string, sections: Record<string, string>) =>
  `# ${title}\n\n${Object.entries(sections)
    .map(([heading, body]) => `## ${heading}\n\n${body}\n`)
    .join('\n')}`

/** The git connections the webhook examples name (gitlab, ghes); `secret` gives gitlab a webhook secret. */
function gitConnections(secret?: string) {
  return async (sandbox: Sandbox): Promise<void> => {
    const store = await openStore(dataOf(sandbox))
    try {
      await store.connections.create({ teamPk: null }, { kind: 'git', name: 'gitlab', baseUrl: 'https://gitlab.example.com', token: SECRETS.GITLAB_TOKEN })
      await store.connections.create({ teamPk: null }, { kind: 'git', name: 'ghes', baseUrl: 'https://github.acme.example', token: 'ghp_enterprise-token' })
      if (secret) await store.connections.setWebhookSecret({ teamPk: null }, 'gitlab', secret)
    } finally {
      await store.close()
    }
  }
}

async function webhookState(sandbox: Sandbox) {
  const store = await openStore(dataOf(sandbox))
  try {
    return { gitlab: await store.connections.webhookSecret({ teamPk: null }, 'gitlab'), ghes: await store.connections.webhookSecret({ teamPk: null }, 'ghes') }
  } finally {
    await store.close()
  }
}

/** A pending invitation of dave@example.com to the cloud's Acme, as its owner alice sends from the dashboard. */
async function inviteDave(sandbox: Sandbox): Promise<void> {
  const store = await openStore(dataOf(sandbox))
  try {
    const acme = (await store.teams.byName('Acme'))!
    await store.invitations.upsert({ teamId: acme.id, email: 'dave@example.com', role: 'developer', invitedBy: (await store.users.byEmail('alice@example.com'))!.id, ttlMs: 86_400_000 })
  } finally {
    await store.close()
  }
}

/** A queued job for the `jobs cancel` examples: the install's fourth (it ran three while it was set up). */
async function queueJob4(sandbox: Sandbox): Promise<void> {
  const out = await cli(['refresh', '/acme/widgets', '--force', '--json', '--data-dir', dataOf(sandbox)])
  expect((JSON.parse(out) as { queued: Array<{ jobId: number }> }).queued.map((q) => q.jobId), 'the job the examples name').toEqual([4])
}

async function cli(args: string[]): Promise<string> {
  // The cloud's commands (export, license issue) need cloud mode; the others ignore it. Its git
  // remotes are local directories behind github.com (insteadOf), so github.com is trusted as it is.
  const cloud = { LECTERN_MODE: 'cloud', LECTERN_FETCH_ALLOW: 'github.com' }
  const result = await runCli(args, { ...runEnv, ...(args.some((a) => a.includes('/cloud/')) ? cloud : {}) })
  expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(0)
  return result.stdout
}

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  await makeRepo(remotes, 'fastify/fastify', {
    'README.md': docs('Fastify', {
      'Register a route with a schema': 'Declare the JSON schema of the body so Fastify validates every request before your handler runs:\n\n```js\nfastify.post(\'/users\', { schema: { body: { type: \'object\', required: [\'name\'], properties: { name: { type: \'string\' } } } } }, async (request) => request.body)\n```',
      'Hooks': 'Hooks run at points of the request lifecycle:\n\n```js\nfastify.addHook(\'onRequest\', async (request) => request.log.info(\'received\'))\n```',
    }),
  }, ['v4.28.1'])
  await makeRepo(remotes, 'acme/widgets', widgetsFiles(), ['v2.0.0'])
  await makeRepo(remotes, 'vercel/next.js', { 'README.md': docs('Next.js', { 'Create a page': 'Add a file under app/ to make a route:\n\n```tsx\nexport default function Page() { return <h1>Hello</h1> }\n```' }) })
  // The GitOps manifest (`lectern gitops`): the hand-added widgets (skipped) and a gizmos repository to add.
  await makeRepo(remotes, 'acme/gizmos', { 'README.md': docs('Gizmos', { 'Spin a gizmo': 'Spin it:\n\n```js\ngizmo.spin()\n```' }) })
  await makeRepo(remotes, 'acme/lectern-sources', { 'repos.yaml': 'repos:\n  - url: https://github.com/acme/widgets\n  - url: https://github.com/acme/gizmos\n    branch: main\n' })
  await makeRepo(remotes, 'facebook/react', { 'README.md': docs('React', { 'Manage state with hooks': 'useState keeps state in a function component:\n\n```jsx\nconst [count, setCount] = useState(0)\n```' }) })

  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: await tmpDir('lectern-s3rver-', defer), configureBuckets: [{ name: 'my-bucket' }, { name: 'backups' }] })
  const { port: s3Port } = await s3.run()
  defer(() => s3.close())
  const ollama = await ollamaStandIn(8)
  defer(() => ollama.close())
  const openai = createServer((req, res) => {
    let raw = ''
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()))
    req.on('end', () => {
      const { input } = JSON.parse(raw) as { input: string[] }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'list', data: input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, 0.5, 0.25, 1] })) }))
    })
  })
  await new Promise<void>((resolve) => openai.listen(0, '127.0.0.1', resolve))
  defer(() => new Promise<void>((resolve) => openai.close(() => resolve())))
  const confluence = await confluenceStandIn({ flavor: 'datacenter', spaceKey: 'DOCS', token: SECRETS.ATLASSIAN_TOKEN, pages: [
    { id: '123456', title: 'Deploy guide', storage: '<h2>Roll out a release</h2><p>Roll out with the deploy script, one region at a time:</p><ac:structured-macro ac:name="code"><ac:parameter ac:name="language">bash</ac:parameter><ac:plain-text-body><![CDATA[./deploy.sh --region eu-west-1]]></ac:plain-text-body></ac:structured-macro>' },
  ] }, defer)
  const notion = await notionStandIn({ token: SECRETS.NOTION_TOKEN, pages: [{ id: NOTION_PAGE, title: 'Runbooks', blocks: [
    textBlock('heading_1', 'Restart the queue'),
    textBlock('paragraph', 'Restart the queue workers one at a time so no message is lost.'),
    block('code', { language: 'bash', rich_text: [rich('systemctl restart queue-worker@1')], caption: [] }),
  ] }] }, defer)
  const ca = await createTestCa()
  web = await startWebStandIns(ca, defer)
  const proxy = await startForwardProxy({ hosts: web.proxyHosts }, defer)
  const portOf = (url: string) => Number(new URL(url).port)
  postgresUrl = (await startPostgres(defer)).url
  bridges = [
    { port: 5432, target: portOf(postgresUrl) },
    { port: PROXY_PORT, target: proxy.port },
    { port: s3Port, target: s3Port },
    { port: 11434, target: portOf(ollama.url) },
    { port: 8000, target: (openai.address() as AddressInfo).port },
    { port: portOf(confluence.url), target: portOf(confluence.url) },
    { port: portOf(notion.url), target: portOf(notion.url) },
  ]

  runEnv = {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `url.${pathToFileURL(remotes).href}/.insteadOf`,
    GIT_CONFIG_VALUE_0: 'https://github.com/',
    ...SECRETS,
  }

  const root = await tmpDir('lectern-examples-', defer)
  const onprem = await makeSandbox(path.join(root, 'onprem'), HOSTS)
  const cloud = await makeSandbox(path.join(root, 'cloud'), HOSTS)
  const fresh = await makeSandbox(path.join(root, 'fresh'), HOSTS)
  // The test CA, as an administrator installs a company CA: a file for Node, a policy for Chromium.
  for (const sandbox of [onprem, cloud, fresh]) {
    await initDataDir(dataOf(sandbox))
    await mkdir(path.join(sandbox.etc, 'ssl', 'certs'), { recursive: true })
    await writeFile(path.join(sandbox.etc, 'ssl', 'certs', path.basename(CA_FILE)), ca.certPem)
    await mkdir(path.join(sandbox.etc, 'chromium', 'policies', 'managed'), { recursive: true })
    await writeFile(path.join(sandbox.etc, 'chromium', 'policies', 'managed', 'lectern-test-ca.json'), chromiumCaPolicy(ca))
  }
  const onpremData = ['--data-dir', dataOf(onprem)]
  const cloudData = ['--data-dir', dataOf(cloud)]

  // The cloud: public libraries to export, and the licenses it issues.
  await writeFile(path.join(cloud.home, 'lectern.yaml'), 'mode: cloud\n')
  for (const repo of ['vercel/next.js', 'facebook/react']) await cli(['add', `https://github.com/${repo}`, '--wait', ...cloudData])
  await writeFile(path.join(onprem.home, 'lectern-license.pem'), await cli(['license', 'issue', '--public-key', ...cloudData]))
  const expires = new Date(Date.now() + 2 * 365 * 86_400_000).toISOString().slice(0, 10)
  await cli(['license', 'issue', '--customer', 'Acme Corp', '--offline', '--expires', expires, '-o', path.join(onprem.home, 'acme-license.json'), ...cloudData])
  await cli(['export', '/vercel/next.js', '/facebook/react', '-o', path.join(onprem.home, 'lectern-libraries.zip'), ...cloudData])
  await cli(['export', '/vercel/next.js', '--json', '-o', path.join(onprem.home, 'next.json'), ...cloudData])

  // The cloud's accounts: alice owns Acme (pro), bob develops in it with a key of it, carol has no team.
  for (const email of ['alice@example.com', 'bob@example.com', 'carol@example.com']) {
    const created = await runCli(['users', 'create', email, ...cloudData], { ...runEnv, LECTERN_MODE: 'cloud' }, { input: `${ADMIN_PASSWORD}\n` })
    expect(created.exitCode, created.stderr).toBe(0)
  }
  await cli(['teams', 'create', 'Acme', '--owner', 'alice@example.com', '--plan', 'pro', ...cloudData])
  await cli(['teams', 'add-member', 'Acme', 'bob@example.com', '--role', 'developer', ...cloudData])
  await cli(['keys', 'create', '--name', 'bob-ci', '--user', 'bob@example.com', '--team', 'Acme', ...cloudData])
  await writeFile(path.join(cloud.home, 'dana-password.txt'), `${ADMIN_PASSWORD}\n`)

  // The on-premise install.
  await cli(['add', 'https://github.com/fastify/fastify', '--wait', ...onpremData])
  await cli(['add', 'https://github.com/acme/widgets', '--wait', ...onpremData])
  await cli(['versions', 'add', '/acme/widgets', 'v2.0.0', '--wait', ...onpremData])
  for (const name of ['ci', 'cursor-alice', 'grafana']) await cli(['keys', 'create', '--name', name, ...onpremData])
  // Users granted restricted libraries (`lectern libraries access`).
  for (const email of ['alice@example.com', 'bob@example.com']) {
    const created = await runCli(['users', 'create', email, ...onpremData], runEnv, { input: `${ADMIN_PASSWORD}\n` })
    expect(created.exitCode, created.stderr).toBe(0)
  }
  runEnv.LECTERN_API_KEY = (await cli(['keys', 'create', '--name', 'import', ...onpremData])).trim()
  await cli(['gitops', 'config', '--repo', 'https://github.com/acme/lectern-sources', ...onpremData])
  await cli(['connections', 'add', 'confluence', '--name', 'acme', '--site', confluence.url, '--token-env', 'ATLASSIAN_TOKEN', ...onpremData])
  await cli(['connections', 'add', 'notion', '--name', 'ws', '--api-url', notion.url, '--token-env', 'NOTION_TOKEN', ...onpremData])
  await cli(['config', 'set', 'license.publicKeyFile', path.join(onprem.home, 'lectern-license.pem'), ...onpremData])
  await cli(['license', 'install', path.join(onprem.home, 'acme-license.json'), ...onpremData])
  await writeFile(path.join(onprem.home, 'billing-api.yaml'), PETSHOP_YAML)
  await writeFile(path.join(onprem.home, 'admin-password.txt'), `${ADMIN_PASSWORD}\n`)
  await writeFile(path.join(onprem.home, 'questions.json'), JSON.stringify([
    { library: '/fastify/fastify', question: 'validate the request body before my handler runs', relevant: { 'README.md': 2 }, codeMustContain: "required: ['name']" },
    { library: '/acme/widgets', question: 'how do I install widgets with yarn', relevant: { 'docs/guide.md': 2, 'README.md': 1 } },
  ]))
  // A backup to restore, under the names the restore examples use.
  const backups = path.join(dataOf(onprem), 'backups')
  await cli(['backup', '--to', backups, ...onpremData])
  const [made] = await readdir(backups)
  await rename(path.join(backups, made), path.join(backups, ARCHIVE))
  await mkdir(path.join(onprem.mnt, 'backups'), { recursive: true })
  await cp(path.join(backups, ARCHIVE), path.join(onprem.mnt, 'backups', ARCHIVE))
  // From here on backups go to S3; the S3 examples read endpoint and keys from this configuration.
  await cli(['backup', 'config', 'set', '--s3-bucket', 'my-bucket', '--s3-prefix', 'lectern/', '--s3-endpoint', `http://127.0.0.1:${s3Port}`, '--s3-path-style', '--s3-access-key-id', 'S3RVER', '--s3-secret-env', 'AWS_SECRET', ...onpremData])
  worlds = { onprem, cloud, fresh }
})

let runs = 0
async function runExample(example: string): Promise<void> {
  const scenario = SCENARIOS[example] ?? {}
  const sandbox = await copySandbox(worlds[scenario.world ?? 'onprem'], path.join(path.dirname(worlds.onprem.root), `run-${++runs}`))
  // The same install at the system path, for the deployment examples that name it; only for
  // them, since every command takes /var/lib/lectern as its default data directory when it exists.
  if (example.includes('/var/lib/lectern')) await cp(dataOf(sandbox), path.join(sandbox.varLib, 'lectern'), { recursive: true })
  const prepared = await scenario.prepare?.(sandbox)
  const result = await runInSandbox(sandbox, example, { ...scenario, env: { ...runEnv, ...scenario.env, ...prepared }, bridges })
  expect(result.exitCode, `${example}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`).toBe(0)
  await scenario.check?.(result, sandbox)
}

describe('documented examples', { concurrent: true }, async () => {
  const byCommand = await commandExamples()
  const readmeRows = readmeCliRows()
  const all = [...new Set([...[...byCommand.values()].flat(), ...readmeRows.flatMap((r) => r.examples), ...shellExamples()])]

  it('every command has examples in --help and one row in the README CLI table, whose examples are among them', () => {
    for (const [id, examples] of byCommand) {
      expect(examples.length, `${id} has examples`).toBeGreaterThan(0)
      expect(readmeRows.filter((r) => r.command === id).length, `README CLI rows for ${id}`).toBe(1)
    }
    expect(readmeRows.map((r) => r.command).sort()).toEqual([...byCommand.keys()].sort())
    for (const row of readmeRows) {
      expect(row.examples.length, `README example for ${row.command}`).toBeGreaterThan(0)
      for (const example of row.examples) expect(byCommand.get(row.command), `README: ${example}`).toContain(example)
    }
  })

  it('scenarios name documented examples only', () => {
    for (const example of Object.keys(SCENARIOS)) expect(all, example).toContain(example)
  })

  for (const example of all) {
    it(`runs: ${example}`, () => runExample(example))
  }
})
