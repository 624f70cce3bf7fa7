/**
 * The 401 for a refused API key says which case it is, a string that is no key at all or a key
 * that is unknown or revoked (those two read exactly alike, so a guesser learns nothing of which
 * keys once existed), and where keys come from in the install's mode.
 */
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildTestApp, createKey } from '../helpers/app.js'
import { bearer } from '../helpers/tenants.js'

const search = (app: FastifyInstance, key: string) => app.inject({ url: '/api/parse-status', headers: bearer(key) })

async function refusals(mode: 'onprem' | 'cloud') {
  const app = await buildTestApp({ mode, startWorker: false })
  const { keys } = app.runtime.store
  const revoked = await keys.create('old')
  await keys.revoke(revoked.id)
  const valid = await createKey(app)
  // Of a key's form, never issued: the valid key with its last character changed.
  const unknown = valid.slice(0, -1) + (valid.endsWith('a') ? 'b' : 'a')
  const answers = { malformed: await search(app, 'sk-not-a-lectern-key'), revoked: await search(app, revoked.key), unknown: await search(app, unknown) }
  for (const res of Object.values(answers)) expect(res.statusCode).toBe(401)
  expect((await search(app, valid)).statusCode).toBe(200)
  return Object.fromEntries(Object.entries(answers).map(([name, res]) => [name, res.json()])) as Record<keyof typeof answers, { error: string; message: string }>
}

describe('the 401 for a refused API key', () => {
  it('on-premise: names the case and the dashboard or `lectern keys create`', async () => {
    const { malformed, revoked, unknown } = await refusals('onprem')
    expect(malformed).toEqual({
      error: 'invalid_api_key',
      message: 'This is not an API key: keys start with "lct_" followed by letters and digits; create one on the dashboard or with `lectern keys create`.',
    })
    expect(revoked).toEqual({ error: 'invalid_api_key', message: 'This API key is unknown or has been revoked; create one on the dashboard or with `lectern keys create`.' })
    expect(unknown).toEqual(revoked)
  })

  it("in the cloud: names the case and the dashboard's API keys page or POST /api/teams/:team/keys", async () => {
    const { malformed, revoked, unknown } = await refusals('cloud')
    expect(malformed.message).toBe(
      `This is not an API key: keys start with "lct_" followed by letters and digits; create one on the dashboard's API keys page or with POST /api/teams/:team/keys.`,
    )
    expect(revoked).toEqual({
      error: 'invalid_api_key',
      message: "This API key is unknown or has been revoked; create one on the dashboard's API keys page or with POST /api/teams/:team/keys.",
    })
    expect(unknown).toEqual(revoked)
    expect(revoked.message).not.toContain('lectern keys create')
  })
})
