import { describe, expect, it } from 'vitest'
import { buildTestApp, createKey, seedLibrary } from '../helpers/app.js'
import { sqlOf } from '../../src/store/index.js'

const DOCS = { 'docs/a.md': '# Internal\n\n## Deploy\n\nDeploy the internal billing service with the deploy script and a release tag.\n\n```bash\n./deploy.sh v1\n```\n' }

describe('private libraries', () => {
  it('are visible to keys of the install only, in search and context alike', async () => {
    const app = await buildTestApp()
    const { libraryPk } = await seedLibrary(app, '/acme/billing', DOCS)
    await sqlOf(app.runtime.store).run('UPDATE libraries SET is_private = TRUE WHERE pk = ?', [libraryPk])
    const key = await createKey(app)
    const auth = { authorization: `Bearer ${key}` }

    const anonymousSearch = await app.inject({ url: '/api/v2/libs/search?libraryName=billing' })
    expect(anonymousSearch.statusCode).toBe(404)
    expect(anonymousSearch.json().error).toBe('no_libraries_found')
    expect((await app.inject({ url: '/api/v2/libs/search?libraryName=billing', headers: auth })).json().results[0].id).toBe('/acme/billing')

    const anonymous = await app.inject({ url: '/api/v2/context?libraryId=/acme/billing&query=deploy' })
    expect(anonymous.statusCode).toBe(404)
    expect(anonymous.json()).toEqual({ error: 'library_not_found', message: expect.not.stringContaining('private') })
    const keyed = await app.inject({ url: '/api/v2/context?libraryId=/acme/billing&query=deploy', headers: auth })
    expect(keyed.statusCode).toBe(200)
    expect(keyed.body).toContain('./deploy.sh v1')
  })
})
