/**
 * Rate limits per plan (src/tenancy/plans.ts): in the cloud a teamspace's key gets its plan's
 * multiple of `rateLimit.keyed`, with spec 8's headers on every answer and the 429 past it;
 * anonymous callers keep `rateLimit.anonymous`, keys of no teamspace and on-premise keys the keyed
 * limit. Under `serve --workers 2` the primary counts with the same multiple.
 */
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import type { Plan } from '../../src/store/teams.js'
import { buildTestApp, createKey } from '../helpers/app.js'
import { startServer } from '../helpers/server.js'
import { openInstall } from '../helpers/stores.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { send } from '../helpers/workers.js'

// A day-long window, so the test never straddles a reset.
const LIMITS = { anonymous: 2, keyed: 3, windowSeconds: 86_400 }
const SEARCH = '/api/v2/libs/search?libraryName=anything'

async function teamKey(app: FastifyInstance, plan: Plan, name: string): Promise<{ key: string; teamId: number }> {
  const { users, teams, keys } = app.runtime.store
  const owner = await users.create({ email: `${name}@example.com`, password: 'correct horse battery', role: 'member' })
  const team = await teams.create({ name, ownerUserId: owner.id, plan })
  return { key: (await keys.create(name, { userId: owner.id, teamId: team.id })).key, teamId: team.id }
}

/** Sends requests until the first 429, returning the answers; fails past `max`. */
async function untilRefused(app: FastifyInstance, headers: Record<string, string>, max: number) {
  const answers = []
  for (let i = 0; i <= max; i++) {
    const res = await app.inject({ url: SEARCH, headers })
    answers.push(res)
    if (res.statusCode === 429) return answers
  }
  throw new Error(`no 429 within ${max + 1} requests`)
}

function expectLimited(answers: Awaited<ReturnType<typeof untilRefused>>, limit: number): void {
  expect(answers).toHaveLength(limit + 1)
  expect(answers.map((a) => Number(a.headers['ratelimit-limit']))).toEqual(Array(limit + 1).fill(limit))
  expect(answers.map((a) => Number(a.headers['ratelimit-remaining']))).toEqual([...Array.from({ length: limit }, (_, i) => limit - 1 - i), 0])
  const refused = answers.at(-1)!
  expect(refused.json()).toMatchObject({ error: 'rate_limit_exceeded', message: expect.stringContaining(`Rate limit of ${limit} requests per 86400 s exceeded`) })
  const reset = Number(refused.headers['ratelimit-reset'])
  const retryAfter = Number(refused.headers['retry-after'])
  expect(reset).toBe(Math.ceil(Date.now() / 86_400_000) * 86_400)
  expect(retryAfter).toBeGreaterThan(0)
  expect(Math.abs(reset - Math.floor(Date.now() / 1000) - retryAfter)).toBeLessThanOrEqual(1)
}

describe('rate limits per plan', () => {
  it("gives a free key the keyed limit and a pro key five times it, with spec 8's headers; anonymous callers keep theirs", async () => {
    const app = await buildTestApp({ mode: 'cloud', rateLimit: LIMITS })
    const free = await teamKey(app, 'free', 'Freebies')
    const pro = await teamKey(app, 'pro', 'Professionals')
    expectLimited(await untilRefused(app, { authorization: `Bearer ${free.key}` }, 3), 3)
    expectLimited(await untilRefused(app, { authorization: `Bearer ${pro.key}` }, 15), 15)
    expectLimited(await untilRefused(app, {}, 2), 2)
    // A key of no teamspace counts as the keyed limit.
    expectLimited(await untilRefused(app, { authorization: `Bearer ${await createKey(app)}` }, 3), 3)
  })

  it('follows a plan change at the next request, and gives enterprise twenty times the keyed limit', async () => {
    const app = await buildTestApp({ mode: 'cloud', rateLimit: LIMITS })
    const { key, teamId } = await teamKey(app, 'free', 'Growing')
    const headers = { authorization: `Bearer ${key}` }
    expectLimited(await untilRefused(app, headers, 3), 3)
    await app.runtime.store.teams.setPlan(teamId, 'enterprise')
    const res = await app.inject({ url: SEARCH, headers })
    expect(res.statusCode).toBe(404)
    expect(res.headers['ratelimit-limit']).toBe('60')
    // Three allowed before this one; the refused request took nothing.
    expect(res.headers['ratelimit-remaining']).toBe('56')
  })

  it('keeps the keyed limit for on-premise keys', async () => {
    const app = await buildTestApp({ rateLimit: LIMITS })
    expectLimited(await untilRefused(app, { authorization: `Bearer ${await createKey(app)}` }, 3), 3)
  })

  it('holds a pro key to five times the keyed limit across `serve --workers 2`', async () => {
    const dataDir = await tmpDataDir()
    const store = await openInstall(dataDir)
    const owner = await store.users.create({ email: 'pro@example.com', password: 'correct horse battery', role: 'member' })
    const team = await store.teams.create({ name: 'Pros', ownerUserId: owner.id, plan: 'pro' })
    const { key } = await store.keys.create('pro', { userId: owner.id, teamId: team.id })
    await store.close()
    const server = await startServer(dataDir, { LECTERN_RATE_LIMIT_ANONYMOUS: '0', LECTERN_RATE_LIMIT_KEYED: '2', LECTERN_MODE: 'cloud' }, undefined, {
      args: ['--workers', '2', '--rate-limit-window', '86400'],
    })
    const answers = []
    for (let i = 0; i < 11; i++) answers.push(await send(`${server.url}${SEARCH}`, { headers: { authorization: `Bearer ${key}` } }))
    expect(answers.map((a) => a.status)).toEqual([...Array(10).fill(404), 429])
    expect(answers.map((a) => Number(a.headers['ratelimit-limit']))).toEqual(Array(11).fill(10))
    expect(answers.map((a) => Number(a.headers['ratelimit-remaining']))).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0])
  })
})
