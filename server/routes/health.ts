import type { FastifyInstance } from 'fastify'

/**
 * Liveness (`/api/health`: the process answers) and readiness (`/api/ready`: migrated, and the
 * job worker running, whether in this process or, under `serve --workers`, in the one that runs jobs).
 */
export default async function health(app: FastifyInstance): Promise<void> {
  const probe = { config: { probe: true } }
  const { startWorker, jobRunner } = app.lecternOptions
  const jobsTracked = startWorker || typeof jobRunner === 'object'
  app.get('/health', probe, async () => ({ status: 'ok' }))
  app.get('/ready', probe, async (_request, reply) => {
    const ready = app.runtime.store.db.open && (app.runtime.worker.isRunning || !jobsTracked)
    return reply.code(ready ? 200 : 503).send(ready ? { status: 'ready' } : { error: 'not_ready', message: 'The server is starting or stopping.' })
  })
}
