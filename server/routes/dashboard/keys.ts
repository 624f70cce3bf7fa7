/**
 * The dashboard's API keys: list, create (the key is in this one answer only, and is the
 * signed-in admin's), revoke (admin session). A revoked key is refused at once by every
 * process: keys are read from SQLite on each request (server/plugins/auth.ts).
 * Only the install's keys (no teamspace) are the operator's: a teamspace's keys are its tenants'
 * to list and revoke (server/routes/team-keys.ts), so here they are as unknown as a missing key.
 */
import type { FastifyInstance } from 'fastify'
import { LecternError } from '../../../src/errors.js'
import { createKey, revokeKey } from '../../../src/tenancy/keys.js'
import { auditContext } from '../../audit-context.js'
import { CreateKeyBody, CreatedKeySchema, KeyListSchema, KeyParams, KeySchema } from '../../schemas/dashboard.js'

export default async function keys(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const repository = store.keys
  const admin = { access: 'admin' as const }
  const installKeys = async () => (await repository.list()).filter((key) => key.teamId === null)

  app.get('/keys', { config: admin, schema: { response: { 200: KeyListSchema } } }, async () => ({ keys: await installKeys() }))

  app.post<{ Body: { name: string } }>(
    '/keys',
    { config: admin, schema: { body: CreateKeyBody, response: { 201: CreatedKeySchema } } },
    // The signed-in user's key: it reaches what they may (on-premise library access control).
    async (request, reply) => reply.code(201).send(await createKey(store, await auditContext(request, store.users), request.body.name, { userId: request.user!.id, teamId: null })),
  )

  app.delete<{ Params: { id: number } }>(
    '/keys/:id',
    { config: admin, schema: { params: KeyParams, response: { 200: KeySchema } } },
    async (request) => {
      const { id } = request.params
      if (!(await installKeys()).some((key) => key.id === id)) throw new LecternError('key_not_found', `No API key with ID ${id}.`)
      return await revokeKey(store, await auditContext(request, store.users), id)
    },
  )
}
