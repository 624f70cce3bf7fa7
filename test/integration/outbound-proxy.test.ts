/**
 * Every outbound path of a job through a real forward proxy on loopback (the `proxy` package,
 * recording what passes), driven through the CLI as a user runs it with HTTPS_PROXY / HTTP_PROXY
 * / NO_PROXY set: llms.txt and OpenAPI over https:// (CONNECT tunnels to HTTPS STAND-INS for
 * named hosts, their test CA trusted through NODE_EXTRA_CA_CERTS), an OpenAPI spec over http://
 * added through a real server's API, a website over http:// by name (absolute-URI requests)
 * and rendered in Chromium, NO_PROXY going direct, the Confluence
 * and Notion STAND-INS, and S3 backups to s3rver. Proxy credentials work and never show.
 */
import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
// s3rver ships no types.
// @ts-expect-error untyped module
import S3rver from 's3rver'
import { beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli.js'
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js'
import { pollUntil } from '../helpers/poll.js'
import { startServer } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'
import { createTestCa } from '../helpers/tls.js'
import { startWebStandIns, type WebStandIns } from '../helpers/web-standins.js'
import { block, confluenceStandIn, notionStandIn, rich, textBlock } from '../helpers/workspace-standins.js'

const defer = suiteTeardown()
const PROXY_PASSWORD = 'pr0xy-Secret-77'
const ATLASSIAN_TOKEN = 'dc-pat-NjQ4MzQ1Nzg5MDEy'
const NOTION_TOKEN = 'secret_ntn_4b7e2f0a9d'

let web: WebStandIns
let caFile: string
let proxy: ForwardProxy

beforeAll(async () => {
  const ca = await createTestCa()
  caFile = path.join(await tmpDir('lectern-ca-', defer), 'ca.pem')
  await writeFile(caFile, ca.certPem)
  web = await startWebStandIns(ca, defer)
  proxy = await startForwardProxy({ hosts: web.proxyHosts }, defer)
})

/** The proxy variables exactly as given, the others blank, so the machine's own cannot leak in. */
function proxyEnv(vars: { http?: string; https?: string; no?: string }): Record<string, string> {
  return {
    http_proxy: vars.http ?? '', HTTP_PROXY: '', https_proxy: vars.https ?? '', HTTPS_PROXY: '', no_proxy: vars.no ?? '', NO_PROXY: '',
  }
}

/** Runs a command and returns what the proxy saw while it ran. */
async function run(args: string[], env: Record<string, string>, expectedExit = 0): Promise<{ seen: string[]; stdout: string; stderr: string }> {
  const from = proxy.seen.length
  const result = await runCli(args, env)
  expect(result.exitCode, `${args.join(' ')}\n${result.stderr}`).toBe(expectedExit)
  return { seen: proxy.seen.slice(from), stdout: result.stdout, stderr: result.stderr }
}

describe('web sources through the proxy', () => {
  it('llms.txt over https:// goes through a CONNECT tunnel; the name is never resolved here', async () => {
    const dataDir = await tmpDataDir()
    const { seen } = await run(['add', 'llmstxt', 'https://docs.example.com/llms.txt', '--wait', '--data-dir', dataDir], { ...proxyEnv({ https: proxy.url }), NODE_EXTRA_CA_CERTS: caFile })
    expect(new Set(seen)).toEqual(new Set(['CONNECT docs.example.com:443']))
    expect(web.requests.map((r) => r.url)).toEqual(expect.arrayContaining(['https://docs.example.com/llms.txt', 'https://docs.example.com/install.md']))
    const answer = await runCli(['docs', '/llmstxt/docs.example.com-llms.txt', 'install the widgets package', '--data-dir', dataDir])
    expect(answer.stdout).toContain('npm install @acme/widgets')
  })

  it('an OpenAPI spec over https:// likewise', async () => {
    const { seen } = await run(['add', 'openapi', 'https://petstore3.swagger.io/api/v3/openapi.json', '--wait', '--data-dir', await tmpDataDir()], { ...proxyEnv({ https: proxy.url }), NODE_EXTRA_CA_CERTS: caFile })
    expect(seen).toEqual(['CONNECT petstore3.swagger.io:443'])
  })

  it('the tunnel carries TLS end to end: a certificate the process does not trust fails the job', async () => {
    const { seen, stderr } = await run(['add', 'llmstxt', 'https://docs.example.com/llms.txt', '--wait', '--data-dir', await tmpDataDir()], proxyEnv({ https: proxy.url }), 1)
    expect(seen).toContain('CONNECT docs.example.com:443')
    expect(stderr).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT/)
  })

  it('a website over http:// is asked of the proxy with absolute URIs', async () => {
    const { seen } = await run(['add', 'website', 'http://docs.example.com/guide/', '--wait', '--data-dir', await tmpDataDir()], proxyEnv({ http: proxy.url }))
    expect(seen).toEqual(expect.arrayContaining(['GET http://docs.example.com/robots.txt', 'GET http://docs.example.com/guide/', 'GET http://docs.example.com/guide/intro.html']))
    expect(seen.every((line) => line.startsWith('GET http://docs.example.com/'))).toBe(true)
  })

  it('a job of the real server (its worker thread) takes HTTP_PROXY: an OpenAPI spec over http:// by name', async () => {
    const dataDir = await tmpDataDir()
    const key = (await runCli(['keys', 'create', '--name', 'ci', '--data-dir', dataDir])).stdout.trim()
    const server = await startServer(dataDir, proxyEnv({ http: proxy.url }))
    const from = proxy.seen.length
    const added = await fetch(`${server.url}/api/v2/add/openapi`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ openApiUrl: 'http://petstore3.swagger.io/api/v3/openapi.json' }),
    })
    expect(added.status).toBe(200)
    const { libraryName } = (await added.json()) as { libraryName: string }
    await pollUntil('the spec is searchable', async () => {
      const res = await fetch(`${server.url}/api/v2/context?libraryId=${encodeURIComponent(libraryName)}&query=list%20pets`)
      return res.status === 200 ? true : undefined
    }, 60_000)
    expect(proxy.seen.slice(from)).toEqual(['GET http://petstore3.swagger.io/api/v3/openapi.json'])
  }, 90_000)

  it('NO_PROXY sends a host past the proxy', async () => {
    const { seen } = await run(['add', 'website', `http://127.0.0.1:${web.httpPort}/guide/`, '--wait', '--data-dir', await tmpDataDir()], proxyEnv({ http: proxy.url, no: 'localhost, 127.0.0.1' }))
    expect(seen).toEqual([])
  })

  it('--render: Chromium goes through the proxy too, authenticating with the URL\'s credentials, which never show', async () => {
    const guarded = await startForwardProxy({ hosts: web.proxyHosts, credentials: { username: 'lectern', password: PROXY_PASSWORD } })
    const dataDir = await tmpDataDir()
    const result = await runCli(['add', 'website', 'http://app-docs.example.com/', '--render', '--wait', '--data-dir', dataDir], proxyEnv({ http: guarded.url.replace('//', `//lectern:${PROXY_PASSWORD}@`) }))
    expect(result.exitCode, result.stderr).toBe(0)
    const chromeAsked = guarded.seen.filter((line, i) => line === 'GET http://app-docs.example.com/' && guarded.userAgents[i].includes('HeadlessChrome'))
    expect(chromeAsked.length).toBeGreaterThan(0)
    expect(`${result.stdout}${result.stderr}`).not.toContain(PROXY_PASSWORD)
    const answer = await runCli(['docs', '/websites/app-docs.example.com', 'draw a gauge', '--data-dir', dataDir])
    expect(answer.stdout).toContain('drawGauge(canvas, { value: 42 })')
  }, 90_000)

  it('a proxy refusing the credentials fails the job naming the proxy without them, in the output and the database', async () => {
    const guarded = await startForwardProxy({ hosts: web.proxyHosts, credentials: { username: 'lectern', password: 'the-right-one' } })
    const dataDir = await tmpDataDir()
    const result = await runCli(['add', 'llmstxt', 'https://docs.example.com/llms.txt', '--wait', '--data-dir', dataDir], {
      ...proxyEnv({ https: guarded.url.replace('//', `//lectern:${PROXY_PASSWORD}@`) }), NODE_EXTRA_CA_CERTS: caFile,
    })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain(`through the proxy http://***@127.0.0.1:${guarded.port}`)
    expect(`${result.stdout}${result.stderr}`).not.toContain(PROXY_PASSWORD)
    expect(readFileSync(path.join(dataDir, 'lectern.db')).includes(PROXY_PASSWORD)).toBe(false)
    expect(guarded.refused).toBeGreaterThan(0)
  })
})

describe('a proxy variable that is not a proxy URL', () => {
  it('stops the command before anything is fetched, naming the variable and never its credentials', async () => {
    const result = await runCli(['add', 'llmstxt', 'https://docs.example.com/llms.txt', '--wait', '--data-dir', await tmpDataDir()], {
      ...proxyEnv({}), HTTPS_PROXY: `socks5://lectern:${PROXY_PASSWORD}@127.0.0.1:1080`,
    })
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('HTTPS_PROXY names a socks5: proxy (socks5://***@127.0.0.1:1080)')
    expect(`${result.stdout}${result.stderr}`).not.toContain(PROXY_PASSWORD)
  })
})

describe('workspace sources through the proxy', () => {
  it('Confluence and Notion (stand-ins) are read through HTTP_PROXY', async () => {
    const confluence = await confluenceStandIn({ flavor: 'datacenter', spaceKey: 'DOCS', token: ATLASSIAN_TOKEN, pages: [
      { id: '123456', title: 'Deploy guide', storage: '<h2>Roll out a release</h2><p>Roll out with the deploy script, one region at a time:</p><ac:structured-macro ac:name="code"><ac:parameter ac:name="language">bash</ac:parameter><ac:plain-text-body><![CDATA[./deploy.sh --region eu-west-1]]></ac:plain-text-body></ac:structured-macro>' },
    ] }, defer)
    const page = '1f2e3d4c5b6a79881f2e3d4c5b6a7988'
    const notion = await notionStandIn({ token: NOTION_TOKEN, pages: [{ id: page, title: 'Runbooks', blocks: [
      textBlock('heading_1', 'Restart the queue'),
      textBlock('paragraph', 'Restart the queue workers one at a time so no message is lost.'),
      block('code', { language: 'bash', rich_text: [rich('systemctl restart queue-worker@1')], caption: [] }),
    ] }] }, defer)
    const dataDir = ['--data-dir', await tmpDataDir()]
    const env = { ...proxyEnv({ http: proxy.url }), ATLASSIAN_TOKEN, NOTION_TOKEN }
    await run(['connections', 'add', 'confluence', '--name', 'acme', '--site', confluence.url, '--token-env', 'ATLASSIAN_TOKEN', ...dataDir], env)
    await run(['connections', 'add', 'notion', '--name', 'ws', '--api-url', notion.url, '--token-env', 'NOTION_TOKEN', ...dataDir], env)
    const viaConfluence = await run(['add', 'confluence', '--connection', 'acme', '--space', 'DOCS', '--wait', ...dataDir], env)
    expect(viaConfluence.seen).toContain(`GET ${confluence.url}/rest/api/content?spaceKey=DOCS&type=page&expand=body.storage,ancestors,version&start=0&limit=50`)
    expect(viaConfluence.seen.every((line) => line.startsWith(`GET ${confluence.url}/`))).toBe(true)
    expect(confluence.requests.every((r) => r.authorization === `Bearer ${ATLASSIAN_TOKEN}`)).toBe(true)
    const viaNotion = await run(['add', 'notion', '--connection', 'ws', '--page', page, '--title', 'Runbooks', '--wait', ...dataDir], env)
    expect(viaNotion.seen).toEqual(expect.arrayContaining([`GET ${notion.url}/v1/pages/${page}`]))
    expect(viaNotion.seen.every((line) => line.includes(`${notion.url}/v1/`))).toBe(true)
  }, 90_000)
})

describe('S3 backups through the proxy', () => {
  it('lectern backup uploads to s3rver, and backup list reads it, through HTTP_PROXY', async () => {
    const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: await tmpDir('lectern-s3rver-', defer), configureBuckets: [{ name: 'backups' }] })
    const { port } = await s3.run()
    defer(() => s3.close())
    const dataDir = ['--data-dir', await tmpDataDir()]
    const env = { ...proxyEnv({ http: proxy.url }), AWS_SECRET: 'S3RVER' }
    await run(['backup', 'config', 'set', '--s3-bucket', 'backups', '--s3-prefix', 'lectern/', '--s3-endpoint', `http://127.0.0.1:${port}`, '--s3-path-style', '--s3-access-key-id', 'S3RVER', '--s3-secret-env', 'AWS_SECRET', ...dataDir], env)
    const backup = await run(['backup', ...dataDir], env)
    expect(backup.seen).toContainEqual(expect.stringMatching(new RegExp(`^PUT http://127\\.0\\.0\\.1:${port}/backups/lectern/lectern-backup-[0-9T-]+\\.tar\\.gz`)))
    const list = await run(['backup', 'list', '--json', ...dataDir], env)
    expect(list.seen).toEqual([`GET http://127.0.0.1:${port}/backups/?list-type=2&prefix=lectern%2F`])
    expect(JSON.parse(list.stdout)).toMatchObject({ destination: 's3://backups/lectern/', backups: [{ name: expect.stringMatching(/^lectern-backup-/) }] })
  }, 60_000)
})
