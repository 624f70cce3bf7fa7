/**
 * GitOps over HTTP (on-premise; Context7's enterprise/gitops.mdx API): the configuration and the
 * last sync's result, changing the configuration, and running a sync now. An admin session or
 * the API key of an admin reads the status and runs a sync, so CI can after a merge; only an
 * admin session changes the configuration. The process that runs
 * the worker also runs the automatic syncs, when they are on: one at start, then on the schedule.
 */
import type { FastifyInstance } from 'fastify'
import { startScheduler, type Scheduler } from '../../src/backup/schedule.js'
import { readGitOpsConfig, updateGitOpsConfig } from '../../src/gitops/config.js'
import { automaticSync, gitOpsStatus, syncGitOps } from '../../src/gitops/reconcile.js'
import { auditContext } from '../audit-context.js'
import { GitOpsConfigBody, GitOpsConfigSchema, GitOpsStatusSchema, ReconcileQuery, SyncResultSchema } from '../schemas/gitops.js'

export interface GitOpsRoutesOptions {
  /** Run the automatic syncs (at start, on the schedule) in this process: the one that runs the worker. */
  schedule: boolean
}

export default async function gitops(app: FastifyInstance, options: GitOpsRoutesOptions): Promise<void> {
  const { store } = app.runtime
  const operator = { access: 'adminKey' as const }
  if (options.schedule) {
    let scheduler: Scheduler | undefined
    app.addHook('onReady', async () => {
      void automaticSync(store, 'start', app.log, app.runtime.forgetSet)
      const read = async () => {
        const config = await readGitOpsConfig(store)
        return config.enabled && config.schedule !== '' ? { expression: config.schedule, timeZone: 'UTC' } : null
      }
      scheduler = startScheduler(read, () => void automaticSync(store, 'schedule', app.log, app.runtime.forgetSet), app.log, 'GitOps sync')
    })
    app.addHook('onClose', async () => scheduler?.stop())
  }

  app.get('/gitops/status', { config: operator, schema: { response: { 200: GitOpsStatusSchema } } }, async () => await gitOpsStatus(store))

  app.put<{ Body: { repoUrl?: string; path?: string; branch?: string; prune?: boolean; enabled?: boolean; schedule?: string } }>(
    '/gitops/config',
    // An admin session only: a key CI holds must not repoint the manifest or turn pruning on.
    { config: { access: 'admin' as const }, schema: { body: GitOpsConfigBody, response: { 200: GitOpsConfigSchema } } },
    async (request) => await updateGitOpsConfig(store, await auditContext(request, store.users), request.body),
  )

  app.post<{ Querystring: { dryRun?: boolean; force?: boolean } }>(
    '/gitops/reconcile',
    { config: operator, schema: { querystring: ReconcileQuery, response: { 200: SyncResultSchema } } },
    async (request) =>
      await syncGitOps(store, await auditContext(request, store.users), { trigger: 'manual', dryRun: request.query.dryRun, force: request.query.force, forget: app.runtime.forgetSet }),
  )
}
