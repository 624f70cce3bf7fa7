import { Args } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import { cancelJob } from '../../src/jobs/cancel.js'
import { viewJob, type JobView } from '../../src/jobs/view.js'
import { isLocked } from '../../src/store/lock.js'

export default class JobsCancel extends LecternCommand {
  static override summary = 'Cancel a queued or running job; its library keeps what it served before.'
  static override description =
    'A queued job ends at once, and so does a job whose process is gone (`lectern jobs` shows it interrupted). A running job is stopped by the process that runs it (the server, or a command run with --wait) within about a second of this request: its half-built snippets are dropped and its work directory removed. Either way the job ends failed with the code cancelled, and its library keeps serving its previous snippets (one that never had any is shown as failed; add it again to retry). A job that has already ended is refused with job_not_active (exit 5).'
  static override examples = ['<%= config.bin %> <%= command.id %> 4', '<%= config.bin %> <%= command.id %> 4 --json']
  static override enableJsonFlag = true
  static override args = { id: Args.integer({ description: 'Job ID, as `lectern jobs` shows it.', required: true, min: 1 }) }

  async run(): Promise<JobView> {
    const { args, flags } = await this.parse(JobsCancel)
    return this.withRuntime(flags, 'read', async (runtime) => {
      const job = await viewJob(runtime.store, await cancelJob(runtime.store, args.id, 'lectern jobs cancel'))
      if (job.state !== 'running') this.log(`Cancelled job ${job.id}${job.libraryId ? ` of ${job.libraryId}` : ''}.`)
      // Without a lock holder no process runs jobs: the job was cut off, and the next start ends it.
      else if (!isLocked(runtime.store.paths.lock)) this.log(`Job ${job.id} is marked running, but no Lectern process runs jobs now; it ends as cancelled when \`lectern serve\` starts.`)
      else this.log(`Asked job ${job.id} to stop; it ends as cancelled within about a second (see \`lectern jobs\`).`)
      return job
    })
  }
}
