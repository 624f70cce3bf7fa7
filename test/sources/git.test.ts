import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LecternError } from '../../src/errors.js'
import { buildGitEnv, cloneRepo, listRemoteTags, lsRemoteHead, redact } from '../../src/sources/git.js'
import { startGitServer, type GitRoute } from '../helpers/git-server.js'
import { suiteTeardown } from '../helpers/tmp.js'

const TOKEN = 'ghp_s3cretT0kenValue'
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64')

let root: string
let remotes: string
const defer = suiteTeardown()
let env: NodeJS.ProcessEnv
const shas: Record<string, string> = {}
const seenAuth: (string | undefined)[] = []

async function git(args: string[], cwd?: string): Promise<string> {
  const { stdout } = await execa('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd })
  return stdout.trim()
}

async function commitFile(repo: string, name: string, text: string, message: string): Promise<string> {
  await writeFile(join(repo, name), text)
  await git(['add', name], repo)
  await git(['commit', '-q', '-m', message], repo)
  return git(['rev-parse', 'HEAD'], repo)
}

/** The origin: main (two commits), branch `next`, annotated tag v1.0.0 and light tag v1.1.0. */
async function buildOrigin(dir: string): Promise<void> {
  await git(['init', '-q', '-b', 'main', dir])
  shas.v1 = await commitFile(dir, 'README.md', '# Widgets\n', 'first')
  await git(['tag', '-a', 'v1.0.0', '-m', 'release 1.0.0'], dir)
  shas.main = await commitFile(dir, 'guide.md', '# Guide\n', 'second')
  await git(['tag', 'v1.1.0'], dir)
  await git(['checkout', '-q', '-b', 'next'], dir)
  shas.next = await commitFile(dir, 'next.md', '# Next\n', 'third')
  await git(['checkout', '-q', 'main'], dir)
}

/** Smart-HTTP through `git http-backend`: /private/ demands the token, /echo/ fails quoting it, /hang/ never answers. */
const route: GitRoute = (req, res, url) => {
  seenAuth.push(req.headers.authorization)
  if (url.pathname.startsWith('/hang/')) return undefined
  if (url.pathname.startsWith('/echo/')) {
    const pkt = (s: string) => `${(s.length + 4).toString(16).padStart(4, '0')}${s}`
    res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' })
    res.end(pkt(`ERR access denied for ${TOKEN}; Authorization: ${req.headers.authorization ?? 'none'}\n`))
    return undefined
  }
  if (req.headers.authorization !== `Basic ${BASIC}`) {
    res.writeHead(401, { 'www-authenticate': 'Basic realm="test"' }).end()
    return undefined
  }
  return url.pathname.replace(/^\/private/, '')
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'lectern-git-'))
  remotes = join(root, 'remotes')
  await buildOrigin(join(remotes, 'widgets'))
  const base = (await startGitServer(remotes, { route, defer })).url
  const rewrites: [string, string][] = [
    [`${pathToFileURL(remotes).href}/`, 'https://github.com/acme/'],
    [`${base}/private/`, 'https://github.com/secure/'],
    [`${base}/echo/`, 'https://github.com/echo/'],
    [`${base}/hang/`, 'https://github.com/slow/'],
  ]
  env = { GIT_CONFIG_COUNT: String(rewrites.length) }
  rewrites.forEach(([to, from], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = `url.${to}.insteadOf`
    env[`GIT_CONFIG_VALUE_${i}`] = from
  })
})

afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

const dest = (name: string) => join(root, 'clones', name)

async function rejection(promise: Promise<unknown>): Promise<LecternError> {
  const err = await promise.then(() => undefined, (e: unknown) => e)
  expect(err).toBeInstanceOf(LecternError)
  return err as LecternError
}

describe('cloneRepo', () => {
  it('clones the default branch and returns its commit', async () => {
    const result = await cloneRepo({ cloneUrl: 'https://github.com/acme/widgets', destDir: dest('default'), env })
    expect(result).toEqual({ commit: shas.main, branch: 'main' })
    expect(await readFile(join(dest('default'), 'guide.md'), 'utf8')).toBe('# Guide\n')
    expect(await git(['rev-list', '--count', 'HEAD'], dest('default'))).toBe('1')
  })

  it('clones a branch ref', async () => {
    const result = await cloneRepo({ cloneUrl: 'https://github.com/acme/widgets', destDir: dest('next'), ref: 'next', env })
    expect(result).toEqual({ commit: shas.next, branch: 'next' })
  })

  it('clones a tag ref and names the tag as the branch', async () => {
    const result = await cloneRepo({ cloneUrl: 'https://github.com/acme/widgets', destDir: dest('tag'), ref: 'v1.0.0', env })
    expect(result).toEqual({ commit: shas.v1, branch: 'v1.0.0' })
  })

  it('refuses a ref that could read as an option', async () => {
    const err = await rejection(cloneRepo({ cloneUrl: 'https://github.com/acme/widgets', destDir: dest('opt'), ref: '--upload-pack=x', env }))
    expect(err.code).toBe('validation_error')
  })

  it('sends the token as a header and never writes it into the clone', async () => {
    seenAuth.length = 0
    const result = await cloneRepo({ cloneUrl: 'https://github.com/secure/widgets', destDir: dest('secure'), token: TOKEN, env })
    expect(result.commit).toBe(shas.main)
    expect(seenAuth.length).toBeGreaterThan(0)
    expect(seenAuth.every((h) => h === `Basic ${BASIC}`)).toBe(true)
    const config = await readFile(join(dest('secure'), '.git', 'config'), 'utf8')
    expect(config).toContain('https://github.com/secure/widgets')
    expect(config).not.toContain(TOKEN)
    expect(config).not.toContain(BASIC)
    expect(config.toLowerCase()).not.toContain('extraheader')
  })

  it('fails without prompting when the host wants credentials and none are given', async () => {
    const err = await rejection(cloneRepo({ cloneUrl: 'https://github.com/secure/widgets', destDir: dest('anon'), env, timeoutMs: 20_000 }))
    expect(err.code).toBe('source_unreachable')
    expect(err.message).toMatch(/^git clone of https:\/\/github\.com\/secure\/widgets failed: /)
  })

  it('keeps the token out of the error for a missing repository', async () => {
    const err = await rejection(cloneRepo({ cloneUrl: 'https://github.com/secure/nope', destDir: dest('nope'), token: TOKEN, env }))
    expect(err.code).toBe('source_unreachable')
    expect(err.message).toMatch(/^git clone of https:\/\/github\.com\/secure\/nope failed: .+/)
    expect(err.message).not.toContain(TOKEN)
    expect(err.message).not.toContain(BASIC)
    await expect(stat(dest('nope'))).rejects.toThrow()
  })

  it('redacts the token and header when the server echoes them', async () => {
    const err = await rejection(cloneRepo({ cloneUrl: 'https://github.com/echo/widgets', destDir: dest('echo'), token: TOKEN, env }))
    expect(err.message).toContain('access denied for [REDACTED]')
    expect(err.message).not.toContain(TOKEN)
    expect(err.message).not.toContain(BASIC)
  })

  it('kills git on timeout and removes the partial clone', async () => {
    const err = await rejection(cloneRepo({ cloneUrl: 'https://github.com/slow/widgets', destDir: dest('slow'), env, timeoutMs: 500 }))
    expect(err.code).toBe('timeout')
    await expect(stat(dest('slow'))).rejects.toThrow()
  })

  it('rejects with the abort reason when the signal fires', async () => {
    const controller = new AbortController()
    const reason = new Error('job cancelled')
    setTimeout(() => controller.abort(reason), 200)
    const clone = cloneRepo({ cloneUrl: 'https://github.com/slow/widgets', destDir: dest('abort'), env, signal: controller.signal })
    await expect(clone).rejects.toBe(reason)
  })
})

describe('lsRemoteHead and listRemoteTags', () => {
  const url = 'https://github.com/acme/widgets'

  it('resolves HEAD, branches and peeled tags without cloning', async () => {
    expect(await lsRemoteHead(url, undefined, undefined, env)).toBe(shas.main)
    expect(await lsRemoteHead(url, 'next', undefined, env)).toBe(shas.next)
    expect(await lsRemoteHead(url, 'v1.0.0', undefined, env)).toBe(shas.v1)
    expect(await lsRemoteHead(url, 'v1.1.0', undefined, env)).toBe(shas.main)
  })

  it('reports a missing ref as source_unreachable', async () => {
    const err = await rejection(lsRemoteHead(url, 'nope', undefined, env))
    expect(err.code).toBe('source_unreachable')
    expect(err.message).toContain('"nope"')
  })

  it('authenticates with the token', async () => {
    expect(await lsRemoteHead('https://github.com/secure/widgets', 'main', TOKEN, env)).toBe(shas.main)
  })

  it('lists tag names', async () => {
    expect(await listRemoteTags(url, undefined, env)).toEqual(['v1.0.0', 'v1.1.0'])
  })
})

describe('buildGitEnv', () => {
  it('keeps inherited GIT_CONFIG entries, renumbered, and appends the header', () => {
    const out = buildGitEnv(
      {
        PATH: '/bin',
        GIT_CONFIG_COUNT: '3',
        GIT_CONFIG_KEY_0: 'a.b',
        GIT_CONFIG_VALUE_0: '1',
        GIT_CONFIG_KEY_2: 'c.d',
        GIT_CONFIG_VALUE_2: '2',
        GIT_CONFIG_KEY_7: 'stale.key',
        GIT_CONFIG_VALUE_7: 'x',
      },
      TOKEN,
    )
    expect(out).toMatchObject({
      PATH: '/bin',
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_0: 'a.b',
      GIT_CONFIG_VALUE_0: '1',
      GIT_CONFIG_KEY_1: 'c.d',
      GIT_CONFIG_VALUE_1: '2',
      GIT_CONFIG_KEY_2: 'http.extraHeader',
      GIT_CONFIG_VALUE_2: `Authorization: Basic ${BASIC}`,
      GIT_TERMINAL_PROMPT: '0',
      GIT_ASKPASS: '',
    })
    expect(out.GIT_CONFIG_KEY_7).toBeUndefined()
  })

  it('adds no config entry without a token', () => {
    expect(buildGitEnv({ PATH: '/bin' }).GIT_CONFIG_COUNT).toBeUndefined()
  })
})

describe('redact', () => {
  it('removes the token, its Basic form, Authorization values and URL credentials', () => {
    const text = `token ${TOKEN}\nbasic ${BASIC}\n> Authorization: Bearer abc\nhttps://user:pw@example.com/x`
    const out = redact(text, TOKEN)
    expect(out).toBe('token [REDACTED]\nbasic [REDACTED]\n> Authorization: [REDACTED]\nhttps://[REDACTED]@example.com/x')
  })
})
