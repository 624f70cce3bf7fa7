/**
 * Backup and restore endpoints (spec 4.2). Every route needs an admin session and nothing else:
 * no license check, so an operator can always get the data out. Work happens in src/backup/.
 */
import { audit } from '../../src/audit/log.js'
import { auditContext } from '../audit-context.js'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { readBackupConfig, openDestination, openProposedDestination, updateBackupConfig, viewBackupConfig, backupConfigFacts } from '../../src/backup/config.js'
import { inspectArchive, stageRestore } from '../../src/backup/restore.js'
import { readLastRestore } from '../../src/backup/restore-status.js'
import { BackupRunner } from '../../src/backup/runner.js'
import { nextRuns, SCHEDULE_PRESETS, startScheduler, type Scheduler } from '../../src/backup/schedule.js'
import { LecternError } from '../../src/errors.js'
import { ArchiveNameParams, ConfigBody, NextRunsQuery, RestoreQuery, TestDestinationBody } from '../schemas/backup.js'
import { refuseStagedRestore } from '../../src/backup/store-kind.js'

/** How many coming run times the schedule preview lists. */
const NEXT_RUNS = 3

export interface BackupRoutesOptions {
  /** Run scheduled backups in this process (the one that runs the worker). */
  schedule: boolean
  /** Called once a restore is staged and answered; `serve` exits so the next start applies it. */
  onRestoreStaged?: () => void
}

export default async function backupRoutes(app: FastifyInstance, options: BackupRoutesOptions): Promise<void> {
  const { store } = app.runtime
  const runner = new BackupRunner(store, app.log)
  let scheduler: Scheduler | undefined
  if (options.schedule) {
    app.addHook('onReady', async () => {
      scheduler = startScheduler(async () => (await readBackupConfig(store)).schedule, () => void runner.fireScheduled(), app.log)
    })
  }
  app.addHook('onClose', async () => {
    scheduler?.stop()
    // The database closes after this hook: let a running backup finish its snapshot first.
    await runner.idle()
  })
  const admin = { config: { access: 'admin' as const } }

  app.post('/backup', admin, async (request, reply) => {
    const { startedAt, done } = await runner.start({ trigger: 'manual', context: await auditContext(request, store.users) })
    // The outcome is recorded as the last result; the caller polls /backup/status.
    done.catch(() => {})
    return reply.code(202).send({ running: true, startedAt })
  })

  // A `lectern backup` in another process counts as running too (it holds the backup lock).
  app.get('/backup/status', admin, async () => ({ ...await runner.status(), lastRestore: readLastRestore(store.paths) }))

  app.get('/backups', admin, async () => {
    const destination = await openDestination(store)
    return { destination: destination.label, backups: await destination.list() }
  })

  app.get<{ Params: { name: string } }>('/backups/:name/download', { ...admin, schema: { params: ArchiveNameParams } }, async (request, reply) => {
    const destination = await localDestination(store)
    const stream = await destination.download(request.params.name)
    return reply
      .header('content-type', 'application/gzip')
      .header('content-disposition', `attachment; filename="${request.params.name}"`)
      .send(stream)
  })

  app.get('/backup/config', admin, async () => await viewBackupConfig(store))

  app.put('/backup/config', { ...admin, schema: { body: ConfigBody } }, async (request) => {
    const view = await updateBackupConfig(store, request.body)
    await audit(store, await auditContext(request, store.users), 'settings.changed', 'backup.config', backupConfigFacts(view))
    await scheduler?.reload()
    return view
  })

  // Nothing is stored: the page tests a destination before saving it.
  app.post('/backup/config/test', { ...admin, schema: { body: TestDestinationBody } }, async (request) => {
    await (await openProposedDestination(store, request.body)).probe()
    return { ok: true }
  })

  app.get<{ Querystring: { expression: string; timeZone: string } }>('/backup/schedule/next', { ...admin, schema: { querystring: NextRunsQuery } }, async (request) => ({
    presets: SCHEDULE_PRESETS,
    next: nextRuns(request.query, NEXT_RUNS),
  }))

  app.post<{ Params: { name: string }; Querystring: { dryRun: boolean } }>(
    '/backups/:name/restore',
    { ...admin, schema: { params: ArchiveNameParams, querystring: RestoreQuery } },
    async (request, reply) => {
      const destination = await localDestination(store)
      const archive = path.join(destination.stagingDir, request.params.name)
      refuseStagedRestore(store.database.kind)
      if (request.query.dryRun) return { dryRun: true, ...(await inspectArchive(archive, store.paths.root)).summary }
      const summary = await stageRestore(store.paths, archive)
      await audit(store, await auditContext(request, store.users), 'restore.staged', summary.name, { createdAt: summary.createdAt })
      if (options.onRestoreStaged) reply.raw.once('finish', options.onRestoreStaged)
      return reply.code(202).send({
        staged: true,
        ...summary,
        message: 'The restore is staged. Restart Lectern to apply it: the current data is moved to pre-restore-<timestamp>/ first.',
      })
    },
  )
}

async function localDestination(store: FastifyInstance['runtime']['store']) {
  const destination = await openDestination(store)
  if (destination.kind !== 'dir') {
    throw new LecternError('validation_error', `Downloads and dashboard restores read the local destination; this one is ${destination.label}. Download the archive from the bucket and run lectern restore.`)
  }
  return destination
}
