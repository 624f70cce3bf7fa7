/** The Fastify app in-process (no port), and the waits and keys tests need around it. */
import type { FastifyInstance } from 'fastify'
import { onTestFinished } from 'vitest'
import { buildApp, type AppOptions } from '../../server/app.js'
import { ingestSnippets } from '../../src/index/build.js'
import { snippetsOf } from '../../src/jobs/ingest.js'
import type { LibraryVersion } from '../../src/store/libraries.js'
import { pollUntil } from './poll.js'
import { installDatabase } from './stores.js'
import { tmpDataDir, type Defer } from './tmp.js'

export interface TestAppOptions extends Partial<AppOptions> {
  defer?: Defer
}

/**
 * buildApp on a fresh data dir (unless one is given), closed when the test or suite ends.
 * Rate limits are off unless asked for, so polling and many requests never trip them.
 * `TEST_LOG=1` writes the app's log to stderr, for the cause of an unexpected 500.
 * In the PostgreSQL run (vitest.postgres.config.ts) the app's store is its data directory's database.
 */
export async function buildTestApp(opts: TestAppOptions = {}): Promise<FastifyInstance> {
  const { defer = onTestFinished, ...options } = opts
  const dataDir = options.dataDir ?? (await tmpDataDir(defer))
  // The PostgreSQL run of the suites (vitest.postgres.config.ts): each app on a database of its own.
  const database = options.database ?? (await installDatabase(dataDir, defer))
  const app = await buildApp({ rateLimit: { anonymous: 0, keyed: 0, signIn: 0 }, ...(process.env.TEST_LOG ? { logStream: process.stderr } : {}), ...options, dataDir, ...(database ? { database } : {}) })
  defer(async () => {
    await app.close()
  })
  return app
}

/** A fresh API key of the app's store. */
export async function createKey(app: FastifyInstance, name = 'test'): Promise<string> {
  return (await app.runtime.store.keys.create(name)).key
}

/**
 * Waits until the library's default version is finalized or failed, reading the store rather
 * than the API so the polls never count against a rate limit. The worker runs in this process,
 * so each short timer also lets the job make progress.
 */
export function waitForLibrary(app: FastifyInstance, id: string, timeoutMs = 20_000): Promise<LibraryVersion> {
  const { libraries } = app.runtime.store
  return pollUntil(
    `${id} to be finalized or fail`,
    async () => {
      const library = await libraries.byId(id)
      const version = library && await libraries.version(library.pk, '')
      return version?.state === 'finalized' || version?.state === 'error' ? version : undefined
    },
    timeoutMs,
  )
}

/** POSTs a GitHub repository the way a client does, with a key. */
export function addRepo(app: FastifyInstance, key: string, url: string) {
  return app.inject({
    method: 'POST',
    url: '/api/v2/add/repo/github',
    headers: { authorization: `Bearer ${key}` },
    payload: { docsRepoUrl: url },
  })
}

/**
 * Puts documents straight into a library version, bypassing git and the worker: for tests about
 * serving a library rather than ingesting one. Creates the library when it does not exist.
 */
export async function seedLibrary(app: FastifyInstance, id: string, documents: Record<string, string>, tag = ''): Promise<{ libraryPk: number; setPk: number }> {
  const { store, embedders } = app.runtime
  const library = await store.libraries.byId(id) ?? (await store.libraries.create({ id, title: id.split('/')[2], sourceKind: 'github', sourceUrl: `https://github.com${id}` })).library
  const version = await store.libraries.ensureVersion(library.pk, tag)
  const snippets = snippetsOf(
    Object.entries(documents).map(([path, text]) => ({ path, text })),
    (file, anchor) => `${file}#${anchor}`,
  )
  const { setPk } = await ingestSnippets({ store, embedder: await embedders.current() }, { versionPk: version.pk, commitSha: null }, snippets)
  return { libraryPk: library.pk, setPk }
}
