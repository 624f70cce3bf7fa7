import { setTimeout as sleep } from 'node:timers/promises'
import { Flags } from '@oclif/core'
import { colour, humanDate, humanDuration, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { LOCAL } from '../../src/library/access.js'
import { parseStatus, recentWarnings, type ParseStatusResponse, type WarnedParse } from '../../src/jobs/status.js'

type JobsView = ParseStatusResponse & { recentWarnings: WarnedParse[] }

function render(status: JobsView): string {
  const active = Object.entries(status.activeParses)
  const parts: string[] = []
  if (active.length === 0) parts.push('No jobs queued or running.')
  else {
    parts.push(
      table(active, [
        { header: 'STATE', value: ([, j]) => (j.status === 'queued' ? colour.yellow(`queued #${j.position}`) : j.status === 'interrupted' ? colour.red('interrupted') : colour.cyan('running')) },
        { header: 'LIBRARY', value: ([libraryId]) => libraryId },
        { header: 'JOB', value: ([, j]) => String(j.jobId), right: true },
        { header: 'KIND', value: ([, j]) => j.kind },
        { header: 'TIME', value: ([, j]) => (j.status === 'queued' ? `queued ${humanDate(j.createdAt)}` : j.status === 'interrupted' ? `started ${humanDate(j.startedAt)}` : `running ${humanDuration(j.duration ?? 0)}`) },
        { header: 'PROGRESS', value: ([, j]) => j.statusMessage ?? '-' },
      ]),
    )
  }
  if (status.recentFailures.length > 0) {
    parts.push(
      `${colour.bold('Recent failures')}\n${table(status.recentFailures, [
        { header: 'LIBRARY', value: (f) => f.project },
        { header: 'JOB', value: (f) => String(f.jobId), right: true },
        { header: 'FAILED', value: (f) => humanDate(f.finishedAt) },
        { header: 'REASON', value: (f) => `${colour.red(f.error)}: ${f.message}` },
      ])}`,
    )
  }
  if (status.recentWarnings.length > 0) {
    parts.push(
      `${colour.bold('Succeeded with warnings')}\n${table(status.recentWarnings, [
        { header: 'LIBRARY', value: (w) => w.project },
        { header: 'JOB', value: (w) => String(w.jobId), right: true },
        { header: 'ENDED', value: (w) => humanDate(w.finishedAt) },
        { header: 'WARNINGS', value: (w) => colour.yellow(String(w.warnings)), right: true },
        { header: 'MESSAGE', value: (w) => w.message },
      ])}`,
    )
  }
  return parts.join('\n\n')
}

export default class Jobs extends LecternCommand {
  static override summary = 'Show the job queue: queued jobs with their position, running ones with progress, recent failures and jobs that succeeded with warnings.'
  static override description =
    'With --watch on a terminal the display is redrawn every second until Ctrl-C. When the output is not a terminal (a pipe, a log file), --watch prints a timestamped snapshot each time the queue changes instead, without escape codes.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --watch', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true
  static override flags = {
    watch: Flags.boolean({ summary: 'Follow the queue until Ctrl-C: redrawn on a terminal, timestamped snapshots otherwise.' }),
  }

  async run(): Promise<JobsView> {
    const { flags } = await this.parse(Jobs)
    return this.withRuntime(flags, 'read', async (runtime) => {
      const view = async (): Promise<JobsView> => ({ ...await parseStatus(runtime.store, LOCAL), recentWarnings: await recentWarnings(runtime.store, LOCAL) })
      let status = await view()
      if (!flags.watch || this.jsonEnabled()) {
        this.log(render(status))
        return status
      }
      let stopped = false
      process.once('SIGINT', () => {
        stopped = true
      })
      const redraw = process.stdout.isTTY === true
      let shown: string | undefined
      while (!stopped) {
        const text = render(status)
        if (redraw) process.stdout.write(`\x1b[2J\x1b[H${text}\n`)
        // Piped: a snapshot only when the queue changed, so a log stays readable.
        else if (text !== shown) this.log(`--- ${new Date().toISOString()}\n${text}\n`)
        shown = text
        await sleep(1000)
        status = await view()
      }
      return status
    })
  }
}
