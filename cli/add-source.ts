/**
 * What the `add` commands share: report the submitted job, and with --wait follow it to the end.
 */
import { LOCAL } from '../src/library/access.js'
import { reportSummary } from '../src/extraction/report.js'
import { extractionOf } from '../src/extraction/view.js'
import type { Submitted } from '../src/jobs/submit.js'
import type { Runtime } from '../src/runtime.js'
import { restrictionNotice } from '../src/tenancy/library-access.js'
import { LecternCommand } from './run.js'
import { counted } from '../src/text/counted.js'

export interface AddSourceResult {
  libraryName: string
  message: string
  jobId: number
  state?: string
  /** With --wait: what the library serves now, and what its extraction report says went wrong. */
  snippets?: number
  pages?: number
  warnings?: string[]
}

export abstract class AddSourceCommand extends LecternCommand {
  protected async follow(runtime: Runtime, submitted: Submitted, wait: boolean): Promise<AddSourceResult> {
    const notice = await restrictionNotice(runtime.store, runtime.mode, LOCAL, submitted.libraryId)
    const message = notice ? `${submitted.message} ${notice}` : submitted.message
    const result: AddSourceResult = { libraryName: submitted.libraryId, message, jobId: submitted.job.pk }
    if (!wait) {
      await this.reportQueued(runtime, `${message} Follow it with \`lectern jobs\`.`)
      return result
    }
    const job = await this.followJob(runtime, submitted.job.pk, submitted.libraryId)
    const served = await servedBy(runtime, job.versionPk)
    this.log(`${submitted.libraryId} is ready: ${counted(served.snippets, 'snippet')} from ${counted(served.pages, 'page')}. Ask it: lectern docs ${submitted.libraryId} "<your question>"${this.dataDirArgument(runtime.store.paths.root)}`)
    const warnings = await extractionWarnings(runtime, submitted.libraryId, job.warnings)
    if (warnings.length > 0) this.log(`With warnings: ${warnings.join('; ')}. See them: lectern inspect ${submitted.libraryId}${this.dataDirArgument(runtime.store.paths.root)}`)
    if (notice) this.log(notice)
    return { ...result, state: job.state, ...served, warnings }
  }
}

/** What the job's extraction report says went wrong, a line per kind; none when the job had no warnings. */
async function extractionWarnings(runtime: Runtime, libraryId: string, count: number): Promise<string[]> {
  if (count === 0) return []
  const { report } = await extractionOf(runtime.store, libraryId, LOCAL)
  return report ? reportSummary(report) : []
}

/** The snippets and pages (documents that gave snippets) of a version's live set. */
async function servedBy(runtime: Runtime, versionPk: number | null): Promise<{ snippets: number; pages: number }> {
  const version = versionPk === null ? undefined : await runtime.store.libraries.versionByPk(versionPk)
  if (!version || version.currentSet === null) return { snippets: 0, pages: 0 }
  return { snippets: version.totalSnippets, pages: (await runtime.store.snippets.pagesOfSet(version.currentSet)).length }
}
