/**
 * The job queue for admins (the dashboard's Parse Queue): list jobs, read one and its log lines,
 * cancel one. Every route needs an admin session. Jobs run in one process, the request may
 * reach any: everything here reads and writes the database, which they share (src/jobs/).
 */
import type { FastifyInstance } from 'fastify'
import { cancelJob } from '../../src/jobs/cancel.js'
import { listJobs, viewJob } from '../../src/jobs/view.js'
import { requireJob, type JobState } from '../../src/store/jobs.js'
import { JobList, JobLogLines, JobLogQuery, JobParams, JobsQuery, JobView, type JobLogQueryType, type JobParamsType, type JobsQueryType } from '../schemas/jobs.js'

export default async function jobsRoutes(app: FastifyInstance): Promise<void> {
  const { store } = app.runtime
  const admin = { access: 'admin' as const }

  app.get<{ Querystring: JobsQueryType }>('/jobs', { config: admin, schema: { querystring: JobsQuery, response: { 200: JobList } } }, async (request) => ({
    jobs: await listJobs(store, request.query.state.split(',') as JobState[], request.query.limit),
  }))

  app.get<{ Params: JobParamsType }>('/jobs/:id', { config: admin, schema: { params: JobParams, response: { 200: JobView } } }, async (request) =>
    await viewJob(store, await requireJob(store.jobs, request.params.id)),
  )

  app.get<{ Params: JobParamsType; Querystring: JobLogQueryType }>(
    '/jobs/:id/log',
    { config: admin, schema: { params: JobParams, querystring: JobLogQuery, response: { 200: JobLogLines } } },
    async (request) => {
      await requireJob(store.jobs, request.params.id)
      return { lines: await store.jobLogs.list(request.params.id, request.query.after) }
    },
  )

  // The process running the job may be another one: it notices the request on the job's row.
  app.post<{ Params: JobParamsType }>('/jobs/:id/cancel', { config: admin, schema: { params: JobParams, response: { 200: JobView } } }, async (request) =>
    await viewJob(store, await cancelJob(store, request.params.id, `admin ${request.user!.email}`)),
  )
}
