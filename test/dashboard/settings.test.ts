/**
 * The Settings page in Chromium against a real `lectern serve` with a library: switching the
 * embedding provider to a loopback server speaking Ollama's /api/embed (Ollama cannot run here),
 * refused first for a model it lacks; MCP's connection snippets and live test, and requiring a key.
 */
import { readFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { execa } from 'execa'
import { beforeAll, describe, expect, it } from 'vitest'
import { openPage, screenshot, type WatchedPage } from '../helpers/browser.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { createAdmin, signIn } from '../helpers/dashboard-admin.js'
import { gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
import { ollamaStandIn } from '../helpers/ollama.js'
import { confluenceStandIn, type StandIn } from '../helpers/workspace-standins.js'
import { startServer, type ServerProcess } from '../helpers/server.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

let server: ServerProcess
let dataDir: string
let ollama: string
let watched: WatchedPage
let confluence: StandIn
const ATLASSIAN_TOKEN = 'atlassianDashboardT0ken'

const lectern = (...args: string[]) => execa(process.execPath, ['bin/run.js', ...args, '--data-dir', dataDir], { cwd: PROJECT_ROOT })

describe('the Settings page', () => {
  // At suite level: a teardown registered inside beforeAll would never run.
  const teardown = suiteTeardown()
  beforeAll(async () => {
    const stand = ollamaStandIn({ models: { 'nomic-embed-text': 16 } })
    await new Promise<void>((resolve) => stand.server.listen(0, '127.0.0.1', resolve))
    teardown(() => new Promise<void>((resolve) => stand.server.close(() => resolve())))
    ollama = `http://127.0.0.1:${(stand.server.address() as AddressInfo).port}`
    // A loopback server speaking the Confluence Data Center REST subset Lectern reads (Confluence cannot run here).
    confluence = await confluenceStandIn({ flavor: 'datacenter', spaceKey: 'DOCS', token: ATLASSIAN_TOKEN, pages: [
      { id: '123456', title: 'Deploy guide', storage: '<h2>Roll out a release</h2><p>Roll out with the deploy script, one region at a time:</p><ac:structured-macro ac:name="code"><ac:parameter ac:name="language">bash</ac:parameter><ac:plain-text-body><![CDATA[./deploy.sh --region eu-west-1]]></ac:plain-text-body></ac:structured-macro>' },
    ] }, teardown)
    const repos = await tmpDir('lectern-repos-', teardown)
    await makeGitRepo({ 'docs/guide.md': '# Guide\n\n## Draw\n\nDraw a widget.\n\n```js\ndrawWidget()\n```\n' }, { parent: repos, name: 'widgets' })
    dataDir = await tmpDataDir(teardown)
    await createAdmin(dataDir)
    server = await startServer(dataDir, gitRedirectEnv(repos), teardown, { args: ['--workers', '1'] })
    // Queued through the data directory and run by the server's job worker.
    await lectern('add', 'https://github.com/acme/widgets', '--wait')
    watched = await openPage(server.url, teardown)
  }, 90_000)

  it('switches the embedding provider to Ollama after refusing a model the server lacks, and re-embeds', async () => {
    const { page } = watched
    await signIn(page, '/settings')
    await expect.poll(() => page.getByText('Now: hash').isVisible()).toBe(true)
    await page.getByLabel('Provider', { exact: true }).selectOption('ollama')
    const embedding = page.getByRole('region', { name: 'Embedding provider' })
    await embedding.getByLabel('Model').fill('all-minilm')
    await embedding.getByLabel('Host').fill(ollama)
    await page.getByRole('button', { name: 'Switch and re-embed' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('all-minilm')
    await expect.poll(() => page.getByText('Now: hash').isVisible()).toBe(true)

    await embedding.getByLabel('Model').fill('nomic-embed-text')
    await page.getByRole('button', { name: 'Switch and re-embed' }).click()
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Embedding provider set to ollama nomic-embed-text')
    await expect.poll(() => page.getByText(/^Now: ollama nomic-embed-text at/).isVisible()).toBe(true)
    // The library answers throughout, and the re-embedding ends.
    await expect.poll(async () => (await lectern('jobs', '--json')).stdout, { timeout: 30_000 }).not.toMatch(/"kind":\s*"reembed",[^}]*"state":\s*"(queued|running)"/)
    expect((await fetch(`${server.url}/api/v2/context?libraryId=/acme/widgets&query=draw+a+widget`)).status).toBe(200)
    await screenshot(page, 'settings')
    expect(watched.problems).toEqual([])
  }, 60_000)

  it('shows how to connect each editor to this server, tests MCP live, and can require a key', async () => {
    const { page } = watched
    const url = `${server.url}/mcp`
    expect(await page.getByTestId('mcp-Claude Code').textContent()).toBe(`claude mcp add --transport http lectern ${url}`)
    expect(JSON.parse((await page.getByTestId('mcp-Cursor').textContent())!)).toEqual({ mcpServers: { lectern: { url } } })
    expect(JSON.parse((await page.getByTestId('mcp-VS Code').textContent())!)).toEqual({ servers: { lectern: { type: 'http', url } } })
    await page.getByRole('button', { name: 'Test MCP' }).click()
    await expect.poll(() => page.getByText(/^MCP answers: tools/).textContent()).toContain('get-library-docs')

    await page.getByRole('switch', { name: 'MCP calls need an API key' }).check()
    await expect.poll(() => page.getByTestId('mcp-Cursor').textContent()).toContain('Bearer lct_your_key')
    await page.getByRole('button', { name: 'Test MCP' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/key/i)
    const key = (await lectern('keys', 'create', '--name', 'mcp-test', '--json')).stdout
    await page.getByLabel('API key for the test (optional)').fill(JSON.parse(key).key)
    await page.getByRole('button', { name: 'Test MCP' }).click()
    await expect.poll(() => page.getByText(/^MCP answers: tools/).isVisible()).toBe(true)
    expect(watched.problems.filter((p) => !p.includes('401'))).toEqual([])
  }, 60_000)

  it('stores a git host connection with a write-only token, makes its webhook secret, and removes it', async () => {
    const { page } = watched
    const token = 'glpat-browserSecret987'
    const connections = page.getByRole('region', { name: 'Connections' })
    await connections.getByLabel('Connection kind').selectOption('git')
    await connections.getByLabel('Name', { exact: true }).fill('gitlab')
    await connections.getByLabel('Host', { exact: true }).fill('gitlab.example.com')
    await connections.getByLabel('Token (write-only)').fill(token)
    await connections.getByRole('button', { name: 'Add connection' }).click()
    const row = page.getByRole('row', { name: /gitlab/ })
    await expect.poll(() => row.textContent()).toContain('https://gitlab.example.com')
    expect(await connections.getByLabel('Token (write-only)').inputValue()).toBe('')
    expect(await page.content()).not.toContain(token)
    expect(JSON.parse((await lectern('connections', 'list', '--json')).stdout)).toEqual([expect.objectContaining({ name: 'gitlab', kind: 'git', webhook: false })])

    // The push webhook secret: made, shown once, and what the host's deliveries must carry.
    await page.getByRole('button', { name: 'New webhook secret for gitlab' }).click()
    const shown = page.getByRole('status', { name: 'New webhook secret' })
    await expect.poll(() => shown.isVisible()).toBe(true)
    expect(await shown.textContent()).toContain(`${server.url}/api/webhooks/`)
    const secret = (await shown.locator('pre code').textContent())!.trim()
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    await expect.poll(() => row.textContent()).toContain('secret set')
    const deliver = (token: string) =>
      fetch(`${server.url}/api/webhooks/gitlab`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': crypto.randomUUID(), 'x-gitlab-token': token },
        body: JSON.stringify({ ref: 'refs/heads/main', project: { web_url: 'https://gitlab.example.com/acme/widgets', default_branch: 'main' } }),
      })
    const delivered = await deliver(secret)
    expect(delivered.status).toBe(200)
    expect(await delivered.json()).toMatchObject({ status: 'ignored', reason: expect.stringContaining('no library follows') })
    expect((await deliver('glpat-browserSecret987')).status).toBe(401)
    await page.getByRole('button', { name: 'Remove webhook secret of gitlab' }).click()
    await expect.poll(() => row.textContent()).toContain('none')
    expect((await deliver(secret)).status).toBe(401)

    await page.getByRole('button', { name: 'Remove connection gitlab' }).click()
    await expect.poll(() => page.getByText('No connections yet.').isVisible()).toBe(true)
    expect(watched.problems.filter((p) => !p.includes('401'))).toEqual([])
  })

  it('stores an SSH git connection with its deploy key and known hosts, and shows the key to install', async () => {
    const { page } = watched
    const dir = await tmpDir()
    await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'browser-deploy', '-f', `${dir}/id`])
    const privateKey = await readFile(`${dir}/id`, 'utf8')
    const publicKey = (await readFile(`${dir}/id.pub`, 'utf8')).trim()
    const connections = page.getByRole('region', { name: 'Connections' })
    await connections.getByLabel('Connection kind').selectOption('git')
    await connections.getByLabel('Git transport').selectOption('ssh')
    await connections.getByLabel('Name', { exact: true }).fill('gitea-ssh')
    await connections.getByLabel('Host', { exact: true }).fill('ssh://git.acme.internal:2222')
    await connections.getByLabel(/^Known hosts/).fill(`[git.acme.internal]:2222 ${publicKey.split(' ').slice(0, 2).join(' ')}`)
    await connections.getByLabel(/^Deploy key/).fill(privateKey)
    await connections.getByRole('button', { name: 'Add connection' }).click()
    const row = page.getByRole('row', { name: /gitea-ssh/ })
    await expect.poll(() => row.textContent()).toContain('ssh://git.acme.internal:2222')
    expect(await row.textContent()).toContain(`Deploy key: ${publicKey}`)
    expect(await page.content()).not.toContain('PRIVATE KEY-----\n')
    await screenshot(page, 'settings-ssh-connection')
    await page.getByRole('button', { name: 'Remove connection gitea-ssh' }).click()
    await expect.poll(() => page.getByText('No connections yet.').isVisible()).toBe(true)
    expect(watched.problems.filter((p) => !p.includes('401'))).toEqual([])
  })

  it('adds a Confluence space through a connection stored on this page, and the library answers from it', async () => {
    const { page } = watched
    await page.getByLabel('Connection kind').selectOption('confluence')
    await page.getByLabel('Name', { exact: true }).fill('wiki')
    await page.getByLabel('Site URL').fill(confluence.url)
    await page.getByLabel('Token (write-only)').fill(ATLASSIAN_TOKEN)
    await page.getByRole('button', { name: 'Add connection' }).click()
    await expect.poll(() => page.getByRole('row', { name: /wiki/ }).textContent()).toContain(confluence.url)

    await page.getByRole('link', { name: 'Libraries' }).first().click()
    await page.getByText('Add a library').click()
    await page.getByLabel('Source', { exact: true }).selectOption('confluence')
    await page.getByLabel('Space key').fill('DOCS')
    await page.getByLabel('Title', { exact: true }).fill('Ops wiki')
    await page.getByRole('button', { name: 'Add', exact: true }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toMatch(/Queued \//)
    const id = (await page.getByRole('status').getByRole('link').first().textContent())!
    await expect.poll(() => page.getByRole('row', { name: new RegExp(id) }).textContent(), { timeout: 30_000 }).toContain('ready')
    // Workspace libraries are private: a caller with a key sees them.
    const { key } = JSON.parse((await lectern('keys', 'create', '--name', 'wiki-reader', '--json')).stdout) as { key: string }
    const answer = await fetch(`${server.url}/api/v2/context?${new URLSearchParams({ libraryId: id, query: 'roll out a release' })}`, { headers: { authorization: `Bearer ${key}` } })
    expect(await answer.text(), id).toContain('./deploy.sh --region eu-west-1')
    expect(confluence.requests.every((r) => r.authorization === `Bearer ${ATLASSIAN_TOKEN}`)).toBe(true)
    expect(await page.content()).not.toContain(ATLASSIAN_TOKEN)
    expect(watched.problems.filter((p) => !p.includes('401'))).toEqual([])
  }, 60_000)
})
