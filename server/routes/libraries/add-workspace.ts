/**
 * Adding workspace sources: a Confluence space (`POST /v2/add/confluence`) or Notion pages
 * (`POST /v2/add/notion`). Context7 holds an OAuth connection per account; Lectern holds
 * connections an administrator stored with `lectern connections add`, matched here by the
 * body's site URL (Confluence) or workspace name (Notion). `cloudId`, `workspaceId` and
 * `projectId` have no meaning here and are accepted only for compatibility. Library IDs follow
 * src/sources/confluence.ts and src/sources/notion.ts. In cloud mode the install's connections
 * are the operator's: a teamspace's key looks up its teamspace's own connections only, and any
 * other tenant is refused before any is looked up (tenancy/stored-connections.ts).
 */
import type { FastifyInstance } from 'fastify'
import { LecternError } from '../../../src/errors.js'
import { slugifySegment } from '../../../src/library/id.js'
import { confluenceConnectionForSite, confluenceSubmission } from '../../../src/sources/confluence.js'
import { notionConnectionForWorkspace, notionSubmission } from '../../../src/sources/notion.js'
import type { ConnectionScope } from '../../../src/store/connections.js'
import { callerConnectionScope, storedConnectionRefusal } from '../../../src/tenancy/stored-connections.js'
import { AddConfluenceBody, AddNotionBody, type AddConfluenceBodyType, type AddNotionBodyType } from '../../schemas/workspaces.js'
import { addAnswer, submitPlaced } from '../../submitter.js'

/** Who adds the missing connection: an administrator for the install, the teamspace's owners and admins for theirs. */
const whereToConnect = (scope: ConnectionScope, command: string) =>
  scope.teamPk === null ? `An administrator adds one with \`${command}\`.` : "A teamspace owner or admin adds one under the teamspace's Connections."

export default async function addWorkspace(app: FastifyInstance): Promise<void> {
  app.post<{ Body: AddConfluenceBodyType }>('/v2/add/confluence', { schema: { body: AddConfluenceBody }, config: { access: 'apiKey' } }, async (request) => {
    const { store } = app.runtime
    const body = request.body
    const scope = callerConnectionScope(request.caller, app.lecternOptions.config.mode)
    if (!scope) throw storedConnectionRefusal('Confluence')
    const connection = await confluenceConnectionForSite(store, scope, body.siteUrl)
    if (!connection) {
      throw new LecternError('validation_error', `No Confluence connection for ${body.siteUrl}. ${whereToConnect(scope, `lectern connections add confluence --name <name> --site ${body.siteUrl} --email <email> --token-stdin`)}`)
    }
    const submission = await confluenceSubmission(store, scope, { connection: connection.name, spaceKey: body.spaceKey, pageIds: body.pageIds, title: body.title || body.spaceName, description: body.description })
    const submitted = await submitPlaced(app, request, submission)
    app.runtime.worker.wake()
    return await addAnswer(app, request, submitted)
  })

  app.post<{ Body: AddNotionBodyType }>('/v2/add/notion', { schema: { body: AddNotionBody }, config: { access: 'apiKey' } }, async (request) => {
    const { store } = app.runtime
    const body = request.body
    const scope = callerConnectionScope(request.caller, app.lecternOptions.config.mode)
    if (!scope) throw storedConnectionRefusal('Notion')
    const connection = await notionConnectionForWorkspace(store, scope, body.workspaceName)
    if (!connection) {
      throw new LecternError('validation_error', `No Notion connection for workspace "${body.workspaceName}". ${whereToConnect(scope, `lectern connections add notion --name ${slugifySegment(body.workspaceName)} --token-env NOTION_TOKEN`)}`)
    }
    const submission = await notionSubmission(store, scope, { connection: connection.name, pageIds: body.pageIds, title: body.title, description: body.description })
    const submitted = await submitPlaced(app, request, submission)
    app.runtime.worker.wake()
    return await addAnswer(app, request, submitted)
  })
}
