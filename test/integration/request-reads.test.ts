/**
 * What one /v2/context request reads from the database once its library is resolved (issue 11):
 * the catalogue version, once (and a key's row, for a keyed request). The access gate and the retriever cache the
 * access rules, the workspace default and the resolution against that version, so a change made
 * by another connection (a CLI command, another serving process) moves it and is seen by the next
 * request, while an unchanged catalogue costs no further reads.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ANONYMOUS } from '../../src/access.js'
import { openStore, type Store } from '../../src/store/index.js'
import { createLibraryGate, setRestrictNewLibraries } from '../../src/tenancy/library-access.js'
import { buildTestApp, createKey, seedLibrary } from '../helpers/app.js'

const DOCS = { 'docs/deploy.md': '# Billing\n\n## Deploy\n\nDeploy the billing service with the deploy script and a release tag.\n\n```bash\n./deploy.sh v1\n```\n' }
const CONTEXT = '/api/v2/context?libraryId=/acme/billing&query=deploy%20a%20release'

const others: Store[] = []
afterEach(() => {
  for (const store of others.splice(0)) store.close()
})

/** Counts the reads a request could make: the catalogue version, settings, access rules, library rows. */
function countReads(store: Store) {
  return {
    catalogVersion: vi.spyOn(store, 'catalogVersion'),
    settings: vi.spyOn(store.settings, 'get'),
    rules: vi.spyOn(store.libraryAccess, 'rules'),
    libraries: vi.spyOn(store.libraries, 'byId'),
  }
}

describe('reads of a /v2/context request', () => {
  it('read the catalogue version once, and no setting, access rule or library row, while the catalogue is unchanged, anonymous or keyed', async () => {
    const app = await buildTestApp({ startWorker: false })
    await seedLibrary(app, '/acme/billing', DOCS)
    const key = createKey(app)
    const ask = async (headers: Record<string, string> = {}) => {
      const response = await app.inject({ url: CONTEXT, headers })
      expect(response.statusCode).toBe(200)
      expect(response.body).toContain('deploy.sh v1')
    }
    await ask()
    const reads = countReads(app.runtime.store)
    for (let i = 0; i < 5; i++) await ask()
    for (let i = 0; i < 5; i++) await ask({ authorization: `Bearer ${key}` })
    expect(reads.catalogVersion).toHaveBeenCalledTimes(10)
    expect(reads.settings).not.toHaveBeenCalled()
    expect(reads.rules).not.toHaveBeenCalled()
    expect(reads.libraries).not.toHaveBeenCalled()
  })

  it('see the workspace default changed by another connection at the next request, and read the rules again once', async () => {
    const app = await buildTestApp({ startWorker: false })
    await seedLibrary(app, '/acme/billing', DOCS)
    expect((await app.inject({ url: CONTEXT })).statusCode).toBe(200)

    // Another process's connection, as `lectern config set access.restrictNewLibraries true` opens one.
    const other = await openStore(app.runtime.store.paths.root)
    others.push(other)
    const before = other.catalogVersion()
    setRestrictNewLibraries(other, true)
    expect(other.catalogVersion()).toBeGreaterThan(before)

    const reads = countReads(app.runtime.store)
    const refused = await app.inject({ url: CONTEXT })
    expect(refused.statusCode).toBe(404)
    expect(refused.json()).toMatchObject({ error: 'library_not_found' })
    expect((await app.inject({ url: CONTEXT })).statusCode).toBe(404)
    expect(reads.rules).toHaveBeenCalledTimes(1)
    expect(reads.settings).toHaveBeenCalledTimes(1)

    setRestrictNewLibraries(other, false)
    expect((await app.inject({ url: CONTEXT })).statusCode).toBe(200)
  })
})

describe('the library gate', () => {
  it('reads the catalogue version itself when the request has not, and the rules only when it moved', async () => {
    const app = await buildTestApp({ startWorker: false })
    const { libraryPk } = await seedLibrary(app, '/acme/billing', DOCS)
    const { store } = app.runtime
    const gate = createLibraryGate(store)
    const reads = countReads(store)
    for (let i = 0; i < 3; i++) expect(gate(ANONYMOUS)).toMatchObject({ kind: 'anonymous', closed: new Set() })
    expect(reads.catalogVersion).toHaveBeenCalledTimes(3)
    expect(reads.rules).toHaveBeenCalledTimes(1)
    expect(reads.settings).toHaveBeenCalledTimes(1)
    setRestrictNewLibraries(store, true)
    expect(gate(ANONYMOUS)).toMatchObject({ closed: new Set([libraryPk]) })
    expect(reads.rules).toHaveBeenCalledTimes(2)
  })
})
