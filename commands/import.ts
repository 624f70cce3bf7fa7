import fs from 'node:fs'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Args, Flags } from '@oclif/core'
import { LecternCommand } from '../cli/run.js'
import { importBundle, importPayload, MAX_IMPORT_BYTES, type ImportResult } from '../src/airgap/import.js'
import { LecternError } from '../src/errors.js'
import { jobError, waitForJob } from '../src/jobs/wait.js'
import { requireOfflineLicense } from '../src/license/state.js'

interface ImportOutcome {
  message: string
  queued: string[]
  skipped: Array<{ project: string; reason: string }>
  failed: Array<{ project: string; reason: string }>
}

const isZip = (file: string): boolean => {
  const fd = fs.openSync(file, 'r')
  try {
    const head = Buffer.alloc(4)
    fs.readSync(fd, head, 0, 4, 0)
    return head.equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))
  } finally {
    fs.closeSync(fd)
  }
}

export default class Import extends LecternCommand {
  static override summary = 'Import an exported bundle (.zip) or payload (.json) into this airgapped install.'
  static override description = `Needs an installed offline license. Each library is queued as its own job and re-embedded with this install's embedding provider; existing libraries are skipped unless --force. Works on the data directory (running the jobs itself when no server holds it), or against a server with --url and --key.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> lectern-libraries.zip',
    '<%= config.bin %> <%= command.id %> next.json --force --url http://lectern.internal:3000 --key "$LECTERN_API_KEY"',
  ]
  static override enableJsonFlag = true
  static override args = { file: Args.string({ description: 'Bundle (.zip) or payload (.json).', required: true }) }
  static override flags = {
    force: Flags.boolean({ summary: 'Overwrite libraries that already exist.' }),
    url: Flags.string({ summary: 'Import through a running server at this base URL instead of the data directory.', dependsOn: ['key'] }),
    key: Flags.string({ summary: 'Personal API key for --url.', env: 'LECTERN_API_KEY' }),
  }

  async run(): Promise<ImportOutcome> {
    const { args, flags } = await this.parse(Import)
    let size: number
    try {
      size = fs.statSync(args.file).size
    } catch (err) {
      throw new LecternError('validation_error', `Cannot read ${args.file}: ${(err as Error).message}.`)
    }
    if (size > MAX_IMPORT_BYTES) throw new LecternError('payload_too_large', `${args.file} is ${size} bytes; an import is at most ${MAX_IMPORT_BYTES / (1024 * 1024)} MB.`)
    const zip = isZip(args.file)
    return flags.url ? this.viaServer(args.file, zip, flags.url, flags.key!, flags.force) : this.direct(args.file, zip, flags['data-dir'], flags.config, flags.force)
  }

  private report(result: Pick<ImportResult, 'message' | 'skipped'>): void {
    this.log(result.message)
    for (const s of result.skipped) this.logToStderr(`skipped ${s.project}: ${s.reason}`)
  }

  private async direct(file: string, zip: boolean, dataDir: string | undefined, configFile: string | undefined, force: boolean): Promise<ImportOutcome> {
    return this.withRuntime({ 'data-dir': dataDir, config: configFile }, 'write', async (runtime) => {
      await requireOfflineLicense(runtime, 'Library import')
      const result = zip ? await importBundle(runtime.store, file, force) : await importPayload(runtime.store, file, file, force)
      this.report(result)
      const failed: ImportOutcome['failed'] = []
      for (const [i, job] of result.jobs.entries()) {
        const libraryId = result.queued[i]
        const spinner = this.progress(`[${i + 1}/${result.jobs.length}] ${libraryId}: queued`).start()
        const ended = await waitForJob(runtime, job.pk, (j) => {
          spinner.text = `[${i + 1}/${result.jobs.length}] ${libraryId}: ${j.statusMessage ?? j.state}`
        })
        if (ended.state === 'failed') {
          spinner.fail(`${libraryId}: ${ended.errorMessage ?? 'failed'}`)
          failed.push({ project: libraryId, reason: ended.errorMessage ?? 'failed' })
        } else {
          spinner.succeed(`${libraryId}: ${ended.statusMessage ?? 'done'}`)
        }
      }
      if (failed.length > 0 && failed.length === result.jobs.length) throw jobError((await runtime.store.jobs.byPk(result.jobs[0].pk))!)
      return { message: result.message, queued: result.queued, skipped: result.skipped, failed }
    })
  }

  private async viaServer(file: string, zip: boolean, url: string, key: string, force: boolean): Promise<ImportOutcome> {
    const base = url.replace(/\/+$/, '')
    const blob = await fs.openAsBlob(file)
    let body: FormData | Blob = blob
    const headers: Record<string, string> = { authorization: `Bearer ${key}` }
    if (zip) {
      body = new FormData()
      body.append('bundleFile', blob, path.basename(file))
    } else {
      headers['content-type'] = 'application/json'
    }
    /** fetch, saying which server could not be reached and why (fetch itself only says "fetch failed"). */
    const reach = async (url: string, init?: RequestInit): Promise<Response> => {
      try {
        return await fetch(url, init)
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause
        throw new LecternError('source_unreachable', `Cannot reach the server at ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}.`)
      }
    }
    type Status = {
      activeParses: Record<string, { statusMessage?: string; status: string }>
      recentFailures: Array<{ project: string; kind: string; jobId: number; message: string }>
    }
    /** The answer's JSON; a refusal becomes the error it names. */
    const answerOf = async <T>(response: Response): Promise<T> => {
      const answer = (await response.json().catch(() => ({}))) as T & { error?: string; message?: string }
      if (!response.ok) throw new LecternError((answer.error ?? 'internal_error') as never, answer.message ?? `The server answered ${response.status}.`)
      return answer
    }
    const parseStatus = async () => answerOf<Status>(await reach(`${base}/api/parse-status`, { headers }))
    // Failures listed before this import are older jobs', whatever the two clocks say.
    const earlier = new Set((await parseStatus()).recentFailures.map((f) => f.jobId))
    const answer = await answerOf<ImportResult>(await reach(`${base}/api/import-libraries${force ? '?force=true' : ''}`, { method: 'POST', headers, body }))
    this.report(answer)
    const spinner = this.progress(`importing ${answer.queued.length} ${answer.queued.length === 1 ? 'library' : 'libraries'}`).start()
    const failed: ImportOutcome['failed'] = []
    let pending = new Set(answer.queued)
    while (pending.size > 0) {
      await sleep(500)
      const status = await parseStatus()
      const active = [...pending].filter((p) => status.activeParses[p])
      for (const done of [...pending].filter((p) => !status.activeParses[p])) {
        // This import's job of that very library: not another library whose ID starts the same, nor an earlier import.
        const failure = status.recentFailures.find((f) => f.project === done && f.kind === 'import' && !earlier.has(f.jobId))
        if (failure) failed.push({ project: done, reason: failure.message })
      }
      pending = new Set(active)
      const first = active[0]
      spinner.text = first ? `${answer.queued.length - active.length}/${answer.queued.length} done; ${first}: ${status.activeParses[first].statusMessage ?? status.activeParses[first].status}` : 'done'
    }
    spinner.succeed(`imported ${answer.queued.length - failed.length} of ${answer.queued.length} libraries`)
    for (const f of failed) this.logToStderr(`failed ${f.project}: ${f.reason}`)
    return { message: answer.message, queued: answer.queued, skipped: answer.skipped, failed }
  }
}
