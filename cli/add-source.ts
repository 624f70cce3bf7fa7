/**
 * What the `add` commands share: report the submitted job, and with --wait follow it to the end.
 */
import { LOCAL } from '../src/access.js'
import type { Submitted } from '../src/jobs/submit.js'
import type { Runtime } from '../src/runtime.js'
import { restrictionNotice } from '../src/tenancy/library-access.js'
import { LecternCommand } from './run.js'

export interface AddSourceResult {
  libraryName: string
  message: string
  jobId: number
  state?: string
  /** With --wait: what the library serves now. */
  snippets?: number
  pages?: number
}

export abstract class AddSourceCommand extends LecternCommand {
  protected async follow(runtime: Runtime, submitted: Submitted, wait: boolean): Promise<AddSourceResult> {
    const notice = restrictionNotice(runtime.store, runtime.mode, LOCAL, submitted.libraryId)
    const message = notice ? `${submitted.message} ${notice}` : submitted.message
    const result: AddSourceResult = { libraryName: submitted.libraryId, message, jobId: submitted.job.pk }
    if (!wait) {
      this.reportQueued(runtime, `${message} Follow it with \`lectern jobs\`.`)
      return result
    }
    const job = await this.followJob(runtime, submitted.job.pk, submitted.libraryId)
    const served = servedBy(runtime, job.versionPk)
    const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`
    this.log(`${submitted.libraryId} is ready: ${count(served.snippets, 'snippet')} from ${count(served.pages, 'page')}. Ask it: lectern docs ${submitted.libraryId} "<your question>"${this.dataDirArgument(runtime.store.paths.root)}`)
    if (notice) this.log(notice)
    return { ...result, state: job.state, ...served }
  }
}

/** The snippets and pages (documents that gave snippets) of a version's live set. */
function servedBy(runtime: Runtime, versionPk: number | null): { snippets: number; pages: number } {
  const version = versionPk === null ? undefined : runtime.store.libraries.versionByPk(versionPk)
  if (!version || version.currentSet === null) return { snippets: 0, pages: 0 }
  return { snippets: version.totalSnippets, pages: runtime.store.snippets.pagesOfSet(version.currentSet).length }
}
