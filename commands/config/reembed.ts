import { Flags } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import { REEMBED_JOB } from '../../src/jobs/kinds.js'
import { queueReembed } from '../../src/jobs/reembed.js'
import { waitForJob } from '../../src/jobs/wait.js'

export default class ConfigReembed extends LecternCommand {
  static override summary = 'Queue re-embedding of every snippet set not yet embedded by the configured provider.'
  static override description = `After a provider switch failed half-way (the job list shows why), fix the provider and run this: each set continues from the last batch it saved. --wait runs the jobs here when no server does.`
  static override examples = ['<%= config.bin %> <%= command.id %> --resume --wait']
  static override enableJsonFlag = true
  static override flags = {
    resume: Flags.boolean({ summary: 'Continue interrupted re-embedding (the default behaviour; kept for clarity in scripts).' }),
    wait: Flags.boolean({ char: 'w', summary: 'Wait for the re-embedding to end, showing progress.' }),
  }

  async run(): Promise<{ queuedSets: number[]; failed: number }> {
    const { flags } = await this.parse(ConfigReembed)
    return this.withRuntime(flags, 'read', async (runtime) => {
      const queuedSets = await queueReembed(runtime.store, runtime.embedders)
      let failed = 0
      if (queuedSets.length === 0) this.log('Every snippet set already uses the configured provider, or is queued for it.')
      else if (flags.wait) this.log(`Queued re-embedding of ${queuedSets.length} snippet sets.`)
      else await this.reportQueued(runtime, `Queued re-embedding of ${queuedSets.length} snippet sets.`)
      if (!flags.wait) return { queuedSets, failed }
      const jobs = (await runtime.store.jobs.list({ states: ['queued', 'running'], limit: 1000 })).filter((j) => j.kind === REEMBED_JOB)
      for (const job of jobs.reverse()) {
        const spinner = this.progress(`set ${String(job.payload.setPk)}: queued`).start()
        const ended = await waitForJob(runtime, job.pk, (j) => {
          spinner.text = `set ${String(job.payload.setPk)}: ${j.statusMessage ?? j.state}`
        })
        if (ended.state === 'failed') {
          failed++
          spinner.fail(`set ${String(job.payload.setPk)}: ${ended.errorMessage ?? 'failed'}`)
        } else {
          spinner.succeed(`set ${String(job.payload.setPk)}: ${ended.statusMessage ?? 'done'}`)
        }
      }
      return { queuedSets, failed }
    })
  }
}
