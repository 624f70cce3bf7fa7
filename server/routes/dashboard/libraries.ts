/** The dashboard's libraries: a searchable, paged list, one library, rename and remove (admin session). */
import type { FastifyInstance } from 'fastify'
import { removeLibrary, renameLibrary } from '../../../src/library/admin.js'
import { libraryRow, listLibraryRows } from '../../../src/library/rows.js'
import {
  LibrariesQuery,
  LibraryPageSchema,
  LibraryParams,
  LibraryRowSchema,
  RemovedLibrarySchema,
  RenameBody,
  type LibrariesQueryType,
  type LibraryParamsType,
} from '../../schemas/dashboard.js'

const idOf = (params: LibraryParamsType) => `/${params.owner}/${params.name}`

export default async function libraries(app: FastifyInstance): Promise<void> {
  const { store, catalogue } = app.runtime
  const admin = { access: 'admin' as const }

  app.get<{ Querystring: LibrariesQueryType }>(
    '/libraries',
    { config: admin, schema: { querystring: LibrariesQuery, response: { 200: LibraryPageSchema } } },
    async (request) => listLibraryRows(store, catalogue, request.caller, request.query),
  )

  app.get<{ Params: LibraryParamsType }>(
    '/libraries/:owner/:name',
    { config: admin, schema: { params: LibraryParams, response: { 200: LibraryRowSchema } } },
    async (request) => await libraryRow(store, catalogue, request.caller, idOf(request.params)),
  )

  app.patch<{ Params: LibraryParamsType; Body: { id: string } }>(
    '/libraries/:owner/:name',
    { config: admin, schema: { params: LibraryParams, body: RenameBody, response: { 200: LibraryRowSchema } } },
    async (request) => {
      const renamed = await renameLibrary(store, idOf(request.params), request.body.id)
      return await libraryRow(store, catalogue, request.caller, renamed.id)
    },
  )

  app.delete<{ Params: LibraryParamsType }>(
    '/libraries/:owner/:name',
    { config: admin, schema: { params: LibraryParams, response: { 200: RemovedLibrarySchema } } },
    async (request) => {
      // This process drops the sets at once, and (serve --workers) tells the others to.
      const removed = await removeLibrary(store, idOf(request.params), request.caller, app.runtime.forgetSet)
      return { removed: removed.id, sets: removed.sets }
    },
  )
}
