import type { FastifyInstance } from 'fastify'
import { databaseUnreachable, ERROR_CODES } from '../../src/errors.js'

/**
 * Liveness (`/api/health`: the process answers) and readiness (`/api/ready`: migrated, the
 * database reachable, and the job worker running, whether in this process or, under
 * `serve --workers`, in the one that runs jobs).
 */
export default async function health(app: FastifyInstance): Promise<void> {
  const probe = { config: { probe: true } }
  const { startWorker, jobRunner } = app.lecternOptions
  const jobsTracked = startWorker || typeof jobRunner === 'object'
  app.get('/health', probe, async () => ({ status: 'ok' }))
  app.get('/ready', probe, async (_request, reply) => {
    if (!app.runtime.store.isOpen()) return reply.code(503).send({ error: 'not_ready', message: ERROR_CODES.not_ready.summary })
    // Answers from memory keep working meanwhile; a load balancer sends new work elsewhere until the database is back.
    if (!app.runtime.store.isReachable()) return reply.code(503).send(databaseUnreachable().toBody())
    if (app.runtime.worker.isRunning || !jobsTracked) return { status: 'ready' }
    // A job process that ended unexpectedly is being replaced (src/jobs/job-process.ts); the log says why.
    return reply.code(503).send({ error: 'not_ready', message: 'The server is starting or stopping, or its job process is being started again after it ended (the server log says why).' })
  })
}
