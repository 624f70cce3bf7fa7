/**
 * What the `add <source>` commands for web sources share: report the submitted job, and with
 * --wait follow it to the end the way `lectern add` does.
 */
import type { Submitted } from '../src/jobs/submit.js'
import { jobError, waitForJob } from '../src/jobs/wait.js'
import type { Runtime } from '../src/runtime.js'
import { LecternCommand } from './run.js'

export interface AddSourceResult {
  libraryName: string
  message: string
  jobId: number
  state?: string
}

export abstract class AddSourceCommand extends LecternCommand {
  protected async follow(runtime: Runtime, submitted: Submitted, wait: boolean): Promise<AddSourceResult> {
    const result: AddSourceResult = { libraryName: submitted.libraryName, message: submitted.message, jobId: submitted.job.pk }
    if (!wait) {
      this.log(`${submitted.message} Follow it with \`lectern libraries list\`.`)
      return result
    }
    const spinner = this.spinner(`${submitted.libraryName}: queued`).start()
    const job = await waitForJob(runtime, submitted.job.pk, (j) => {
      spinner.text = `${submitted.libraryName}: ${j.statusMessage ?? j.state}`
    })
    if (job.state === 'failed') {
      spinner.fail(`${submitted.libraryName}: ${job.errorMessage ?? 'failed'}`)
      throw jobError(job)
    }
    spinner.succeed(`${submitted.libraryName}: ${job.statusMessage ?? 'done'}`)
    this.log(`${submitted.libraryName} is ready: lectern docs ${submitted.libraryName} "<your question>"`)
    return { ...result, state: job.state }
  }
}
