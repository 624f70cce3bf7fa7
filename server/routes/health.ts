import type { FastifyInstance } from 'fastify'

/** Liveness (`/api/health`: the process answers) and readiness (`/api/ready`: migrated, worker up). */
export default async function health(app: FastifyInstance): Promise<void> {
  app.get('/health', async () => ({ status: 'ok' }))
  app.get('/ready', async (_request, reply) => {
    const ready = app.runtime.store.db.open && (app.runtime.worker.isRunning || !app.lecternOptions.startWorker)
    return reply.code(ready ? 200 : 503).send(ready ? { status: 'ready' } : { error: 'not_ready', message: 'The server is starting or stopping.' })
  })
}
