/**
 * GitOps over HTTP (on-premise; Context7's enterprise/gitops.mdx API): the configuration and the
 * last sync's result, changing the configuration, and running a sync now. An admin session or
 * the API key of an admin calls them, so CI can run a sync after a merge.
 */
import type { FastifyInstance } from 'fastify'
import { updateGitOpsConfig } from '../../src/gitops/config.js'
import { gitOpsStatus, syncGitOps } from '../../src/gitops/reconcile.js'
import { auditContext } from '../audit-context.js'
import { GitOpsConfigBody, GitOpsConfigSchema, GitOpsStatusSchema, ReconcileQuery, SyncResultSchema } from '../schemas/gitops.js'

export default async function gitops(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const operator = { access: 'adminKey' as const }

  app.get('/gitops/status', { config: operator, schema: { response: { 200: GitOpsStatusSchema } } }, async () => await gitOpsStatus(store))

  app.put<{ Body: { repoUrl?: string; path?: string; branch?: string; prune?: boolean } }>(
    '/gitops/config',
    { config: operator, schema: { body: GitOpsConfigBody, response: { 200: GitOpsConfigSchema } } },
    async (request) => await updateGitOpsConfig(store, await auditContext(request, store.users), request.body),
  )

  app.post<{ Querystring: { dryRun?: boolean; force?: boolean } }>(
    '/gitops/reconcile',
    { config: operator, schema: { querystring: ReconcileQuery, response: { 200: SyncResultSchema } } },
    async (request) =>
      await syncGitOps(store, await auditContext(request, store.users), { dryRun: request.query.dryRun, force: request.query.force, forget: app.runtime.forgetSet }),
  )
}
