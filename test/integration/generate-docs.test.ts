/**
 * End to end over HTTP: a repository added with `generateDocs` is documented from its source code
 * too, so a question about an API answers with the function's signature and its JSDoc example;
 * the same repository added without it is not, and a repository with code but no docs succeeds.
 */
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ContextResponse } from '../../src/index/render.js'
import { buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { makeGitRepo, redirectGitHub } from '../helpers/git.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

const defer = suiteTeardown()
let app: FastifyInstance
const commits: Record<string, string> = {}

const SERVER_TS = `import { Router } from './router.js'

/** Settings of an HTTP server. */
export interface ServerOptions {
  /** TCP port to listen on. */
  port: number
  router?: Router
}

/**
 * Creates an HTTP server that sends each request to the router.
 *
 * @param options - where to listen and how to route
 * @returns a server that starts listening on \`listen()\`
 * @example
 * \`\`\`ts
 * const server = createServer({ port: 8080 })
 * await server.listen()
 * \`\`\`
 */
export function createServer(options: ServerOptions): Server {
  return new Server(options)
}

function normalise(port: number): number {
  return port
}
`

const ROUTER_TS = `/** Sends requests to handlers by method and path. */
export class Router {
  /** Adds a handler for GET requests to \`path\`. */
  get(path: string, handler: Handler): this {
    return this
  }
}
`

const kitFiles = {
  'README.md': '# Server Kit\n\nA tiny toolkit for HTTP services: routing, middleware and logging in one package.\n\n## Install\n\n```bash\nnpm install server-kit\n```\n',
  'src/server.ts': SERVER_TS,
  'src/router.ts': ROUTER_TS,
  'src/server.test.ts': "import { createServer } from './server.js'\n\nexport function createServerForTests() { return createServer({ port: 0 }) }\n",
}

const codeOnlyFiles = {
  'clock/clock.go': 'package clock\n\n// Now returns the current time of the clock.\nfunc Now() Time { return Time{} }\n',
}

/** POSTs a GitHub repository with the given add options. */
function addRepo(key: string, name: string, generateDocs: boolean) {
  return app.inject({
    method: 'POST',
    url: '/api/v2/add/repo/github',
    headers: { authorization: `Bearer ${key}` },
    payload: { docsRepoUrl: `https://github.com/acme/${name}`, generateDocs },
  })
}

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  commits['server-kit'] = (await makeGitRepo(kitFiles, { parent: remotes, name: 'server-kit' })).commit
  await makeGitRepo(kitFiles, { parent: remotes, name: 'server-kit-plain' })
  await makeGitRepo(codeOnlyFiles, { parent: remotes, name: 'clock' })
  redirectGitHub(remotes, defer)
  app = await buildTestApp({ defer })
  const key = await createKey(app)
  for (const [name, generateDocs] of [['server-kit', true], ['server-kit-plain', false], ['clock', true]] as const) {
    const added = await addRepo(key, name, generateDocs)
    expect(added.statusCode, added.body).toBe(200)
  }
  for (const name of ['server-kit', 'server-kit-plain', 'clock']) {
    const version = await waitForLibrary(app, `/acme/${name}`)
    expect(version, version.errorMessage ?? '').toMatchObject({ state: 'finalized' })
  }
})

async function contextJson(libraryId: string, query: string): Promise<ContextResponse> {
  const res = await app.inject({ url: '/api/v2/context', query: { libraryId, query, type: 'json' } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

describe('generateDocs', () => {
  it('answers an API question with the generated snippet: signature, JSDoc and example', async () => {
    const [first] = (await contextJson('/acme/server-kit', 'how do I create a server')).codeSnippets
    expect(first).toMatchObject({
      codeTitle: 'function createServer(options)',
      codeId: `https://github.com/acme/server-kit/blob/${commits['server-kit']}/src/server.ts#createserver`,
      pageTitle: 'src/server.ts',
      codeLanguage: 'typescript',
    })
    expect(first.codeDescription).toContain('Creates an HTTP server that sends each request to the router.')
    expect(first.codeList).toEqual([
      { language: 'typescript', code: 'export function createServer(options: ServerOptions): Server' },
      { language: 'typescript', code: 'const server = createServer({ port: 8080 })\nawait server.listen()' },
    ])
  })

  it('keeps the written docs next to the generated ones, and leaves out tests and unexported code', async () => {
    const { codeSnippets } = await contextJson('/acme/server-kit', 'server router install createServerForTests normalise')
    const titles = codeSnippets.map((s) => s.codeTitle)
    expect(titles).toEqual(expect.arrayContaining(['Install', 'function createServer(options)', 'class Router', 'method Router.get(path, handler)']))
    expect(titles.some((t) => /createServerForTests|normalise/.test(t))).toBe(false)
  })

  it('is off unless asked for: the same repository has no generated snippets', async () => {
    const { codeSnippets } = await contextJson('/acme/server-kit-plain', 'how do I create a server')
    expect(codeSnippets.map((s) => s.codeTitle)).toEqual(['Install'])
  })

  it('documents a repository that has code but no documentation files', async () => {
    const [first] = (await contextJson('/acme/clock', 'what time is it now')).codeSnippets
    expect(first).toMatchObject({ codeTitle: 'func Now()', codeDescription: 'Now returns the current time of the clock.' })
    expect(first.codeList).toEqual([{ language: 'go', code: 'func Now() Time' }])
  })
})
