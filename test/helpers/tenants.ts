/**
 * Tenants of a cloud-mode app for tests: two teamspaces and a personal space, every role and every
 * plan, each member with an API key of their teamspace. Made through the store, as the operator's
 * CLI makes them, so a test starts from the HTTP calls it is about.
 */
import type { FastifyInstance } from 'fastify'
import type { Plan } from '../../src/store/teams.js'
import { membersAllowed } from '../../src/tenancy/plans.js'

export interface Tenant {
  teamPk: number
  /** The teamspace's keys by member: owner, admin, developer (as far as the plan holds them). */
  keys: { owner: string; admin?: string; developer?: string }
}

export interface Tenants {
  /** "Acme", pro plan: an owner, an admin and a developer. */
  acme: Tenant & { keys: Required<Tenant['keys']> }
  /** "Beta", enterprise plan: an owner and a developer. */
  beta: Tenant & { keys: { owner: string; developer: string } }
  /** solo@example.com's personal space, free plan: its owner alone. */
  solo: Tenant
}

const PASSWORD = 'correct horse battery staple'

async function member(app: FastifyInstance, email: string) {
  return await app.runtime.store.users.create({ email, password: PASSWORD, role: 'member' })
}

export async function createTenants(app: FastifyInstance): Promise<Tenants> {
  const { teams, keys } = app.runtime.store
  const keyOf = async (userId: number, teamId: number) => (await keys.create(`key of ${userId}`, { userId, teamId })).key
  const team = async (name: string, plan: Plan) => {
    const owner = await member(app, `owner@${name.toLowerCase()}.example`)
    const created = await teams.create({ name, ownerUserId: owner.id, plan })
    return { teamPk: created.id, owner: await keyOf(owner.id, created.id) }
  }
  const join = async (teamPk: number, email: string, role: 'admin' | 'developer') => {
    const user = await member(app, email)
    await teams.addMember(teamPk, user.id, role, membersAllowed)
    return await keyOf(user.id, teamPk)
  }

  const acme = await team('Acme', 'pro')
  const acmeKeys = { owner: acme.owner, admin: await join(acme.teamPk, 'admin@acme.example', 'admin'), developer: await join(acme.teamPk, 'dev@acme.example', 'developer') }
  const beta = await team('Beta', 'enterprise')
  const betaKeys = { owner: beta.owner, developer: await join(beta.teamPk, 'dev@beta.example', 'developer') }
  const solo = await member(app, 'solo@example.com')
  const personal = await teams.personalTeam(solo.id)
  return {
    acme: { teamPk: acme.teamPk, keys: acmeKeys },
    beta: { teamPk: beta.teamPk, keys: betaKeys },
    solo: { teamPk: personal.id, keys: { owner: await keyOf(solo.id, personal.id) } },
  }
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
