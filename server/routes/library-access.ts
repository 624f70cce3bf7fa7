/**
 * Library access control (on-premise, admin session): every library's access and grantees, one
 * library's access, a namespace's rule (`/acme/*`), and the default of libraries nobody configured. Admins reach every library
 * whatever is set here; src/library/visibility.ts closes the others to everyone else.
 */
import type { FastifyInstance } from 'fastify'
import { auditContext } from '../audit-context.js'
import type { LibraryAccess } from '../../src/store/library-access.js'
import { describeLibraryAccess, setLibraryAccess, setNamespaceAccess, setRestrictNewLibraries } from '../../src/tenancy/library-access.js'
import { LibraryParams, type LibraryParamsType } from '../schemas/dashboard.js'
import { DefaultAccessBody, LibraryAccessEntrySchema, LibraryAccessViewSchema, NamespaceAccessSchema, SetAccessBody, SetNamespaceAccessBody } from '../schemas/library-access.js'

export default async function libraryAccess(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const admin = { access: 'admin' as const }

  app.get('/library-access', { config: admin, schema: { response: { 200: LibraryAccessViewSchema } } }, async () => await describeLibraryAccess(store))

  app.put<{ Body: { restrictNewLibraries: boolean } }>(
    '/library-access/default',
    { config: admin, schema: { body: DefaultAccessBody, response: { 200: LibraryAccessViewSchema } } },
    async (request) => {
      await setRestrictNewLibraries(store, await auditContext(request, store.users), request.body.restrictNewLibraries)
      return await describeLibraryAccess(store)
    },
  )

  app.put<{ Params: LibraryParamsType; Body: { access: LibraryAccess; users?: string[]; groups?: string[] } }>(
    '/libraries/:owner/:name/access',
    { config: admin, schema: { params: LibraryParams, body: SetAccessBody, response: { 200: LibraryAccessEntrySchema } } },
    async (request) => await setLibraryAccess(store, await auditContext(request, store.users), `/${request.params.owner}/${request.params.name}`, request.body.access, { users: request.body.users, groups: request.body.groups }),
  )

  app.put<{ Body: { namespace: string; access: LibraryAccess; users?: string[]; groups?: string[] } }>(
    '/library-access/namespaces',
    { config: admin, schema: { body: SetNamespaceAccessBody, response: { 200: NamespaceAccessSchema } } },
    async (request) => {
      const { namespace, access, users, groups } = request.body
      return await setNamespaceAccess(store, await auditContext(request, store.users), namespace, access, { users, groups })
    },
  )
}
