import type { FastifyInstance } from 'fastify'

/** Liveness (`/api/health`: the process answers) and readiness (`/api/ready`: migrated, job worker running). */
export default async function health(app: FastifyInstance): Promise<void> {
  const probe = { config: { probe: true } }
  app.get('/health', probe, async () => ({ status: 'ok' }))
  app.get('/ready', probe, async (_request, reply) => {
    const ready = app.runtime.store.db.open && (app.runtime.worker.isRunning || !app.lecternOptions.startWorker)
    return reply.code(ready ? 200 : 503).send(ready ? { status: 'ready' } : { error: 'not_ready', message: 'The server is starting or stopping.' })
  })
}
