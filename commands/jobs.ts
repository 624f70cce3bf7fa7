import { setTimeout as sleep } from 'node:timers/promises'
import { Flags } from '@oclif/core'
import { LecternCommand } from '../cli/run.js'
import { LOCAL } from '../src/access.js'
import { parseStatus, type ParseStatusResponse } from '../src/jobs/status.js'

function render(status: ParseStatusResponse): string {
  const lines: string[] = []
  const active = Object.entries(status.activeParses)
  if (active.length === 0) lines.push('No jobs queued or running.')
  for (const [project, job] of active) {
    lines.push(
      job.status === 'queued'
        ? `queued   #${job.position}  ${project}  (job ${job.jobId}, ${job.kind}, since ${job.createdAt})`
        : `running  ${project}  (job ${job.jobId}, ${job.kind}, ${Math.round(job.duration ?? 0)} s): ${job.statusMessage ?? ''}`,
    )
  }
  if (status.recentFailures.length > 0) {
    lines.push('', 'Recent failures:')
    for (const f of status.recentFailures) lines.push(`failed   ${f.project}  (job ${f.jobId}, ${f.finishedAt}): ${f.error}: ${f.message}`)
  }
  return lines.join('\n')
}

export default class Jobs extends LecternCommand {
  static override summary = 'Show the job queue: queued jobs with their position, running ones with progress, recent failures.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --watch', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true
  static override flags = {
    watch: Flags.boolean({ summary: 'Refresh the display every second until Ctrl-C.' }),
  }

  async run(): Promise<ParseStatusResponse> {
    const { flags } = await this.parse(Jobs)
    return this.withRuntime(flags, 'read', async (runtime) => {
      let status = parseStatus(runtime.store, LOCAL)
      if (!flags.watch || this.jsonEnabled()) {
        this.log(render(status))
        return status
      }
      let stopped = false
      process.once('SIGINT', () => {
        stopped = true
      })
      while (!stopped) {
        process.stdout.write(`\x1b[2J\x1b[H${render(status)}\n`)
        await sleep(1000)
        status = parseStatus(runtime.store, LOCAL)
      }
      return status
    })
  }
}
