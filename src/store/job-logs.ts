/**
 * The log lines of each job, in the database so every process can read them (the dashboard asks
 * any serving process; the job runs in one). Only the newest lines of a job are kept, so a job
 * that logs a line per skipped file cannot grow the table without bound; a job's lines go with
 * the job (ON DELETE CASCADE).
 */
import type { Sql } from './sql.js'

export type JobLogLevel = 'info' | 'warn' | 'error'

export interface NewJobLogLine {
  time: string
  level: JobLogLevel
  message: string
  /** Already cleaned of secrets (jobs/job-log.ts). */
  fields?: Record<string, unknown>
}

export interface JobLogLine extends NewJobLogLine {
  /** Increases with every line written, across jobs: `after` pages on it. */
  id: number
}

/** Lines kept per job: the newest. */
export const JOB_LOG_LINES_KEPT = 500

interface JobLogRow {
  pk: number
  time: string
  level: JobLogLevel
  message: string
  fields: string | null
}

export interface JobLogsRepository {
  /** Appends lines in one transaction, then drops the job's lines beyond the newest JOB_LOG_LINES_KEPT. */
  append(jobPk: number, lines: readonly NewJobLogLine[]): Promise<void>
  /** The job's kept lines with an id above `after`, oldest first. */
  list(jobPk: number, after?: number): Promise<JobLogLine[]>
}

export function createJobLogsRepository(sql: Sql): JobLogsRepository {
  return {
    async append(jobPk, lines) {
      if (lines.length === 0) return
      await sql.transaction(async () => {
        for (const line of lines) {
          const fields = line.fields && Object.keys(line.fields).length > 0 ? JSON.stringify(line.fields) : null
          await sql.run('INSERT INTO job_logs (job_pk, time, level, message, fields) VALUES (?, ?, ?, ?, ?)', [jobPk, line.time, line.level, line.message, fields])
        }
        await sql.run(
          `DELETE FROM job_logs WHERE job_pk = ? AND pk <= (SELECT pk FROM job_logs WHERE job_pk = ? ORDER BY pk DESC LIMIT 1 OFFSET ${JOB_LOG_LINES_KEPT})`,
          [jobPk, jobPk],
        )
      })
    },
    list: async (jobPk, after = 0) =>
      (await sql.all<JobLogRow>('SELECT pk, time, level, message, fields FROM job_logs WHERE job_pk = ? AND pk > ? ORDER BY pk', [jobPk, after])).map((r) => ({
        id: r.pk,
        time: r.time,
        level: r.level,
        message: r.message,
        ...(r.fields === null ? {} : { fields: JSON.parse(r.fields) as Record<string, unknown> }),
      })),
  }
}
