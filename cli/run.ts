/**
 * What commands share: opening the data directory for the length of a command, turning Lectern
 * errors into oclif errors with the catalogue's exit code, and a spinner on stderr.
 */
import { Command } from '@oclif/core'
import ora, { type Ora } from 'ora'
import { isLecternError } from '../src/errors.js'
import { jobError, waitForJob } from '../src/jobs/wait.js'
import { openRuntime, type Runtime } from '../src/runtime.js'
import type { Job } from '../src/store/jobs.js'

export async function withRuntime<T>(dataDir: string, work: (runtime: Runtime) => Promise<T> | T): Promise<T> {
  const runtime = await openRuntime({ dataDir })
  try {
    return await work(runtime)
  } finally {
    await runtime.close()
  }
}

/** Base class: Lectern errors end the command with their message and exit code, never a stack. */
export abstract class LecternCommand extends Command {
  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    if (isLecternError(err)) {
      return super.catch(Object.assign(new Error(err.message), { oclif: { exit: err.exit }, code: err.code }) as never)
    }
    return super.catch(err)
  }

  /**
   * Follows a job with a spinner until it ends. A failed job ends the command with its error's
   * exit code, unless `failureEndsCommand` is false (a batch that goes on with the next job).
   */
  protected async followJob(runtime: Runtime, jobPk: number, label: string, failureEndsCommand = true): Promise<Job> {
    const spinner = this.spinner(`${label}: queued`).start()
    const job = await waitForJob(runtime, jobPk, (j) => {
      spinner.text = `${label}: ${j.statusMessage ?? j.state}`
    })
    if (job.state === 'failed') {
      spinner.fail(`${label}: ${job.errorMessage ?? 'failed'}`)
      if (failureEndsCommand) throw jobError(job)
      return job
    }
    spinner.succeed(`${label}: ${job.statusMessage ?? 'done'}`)
    return job
  }

  /** A spinner on stderr, silent with --json or when stderr is not a terminal. */
  protected spinner(text: string): Ora {
    return ora({ text, stream: process.stderr, isEnabled: process.stderr.isTTY === true && !this.jsonEnabled() })
  }
}
