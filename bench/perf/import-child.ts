/**
 * Child-process entry for the import benchmark, so the peak RSS it reports is the import's own
 * and not that of the process that generated the bundle.
 *
 *   LECTERN_LICENSE_PUBLIC_KEY=<pem> node import-child.js <dataDir> <bundle.zip | payload.json> <license.json>
 *
 * Installs the license, then imports the file with the calls `lectern import <file>` makes on a
 * data directory no server holds (commands/import.ts): the offline-license check, `importBundle`
 * for a bundle or `importPayload` of the file for a payload (both validate and stage a snippet at
 * a time), then `waitForJob` for each job, which takes the data-directory lock and runs the queue
 * in this process. Then it answers one question from the first library. Sends one
 * `ImportChildReport` over IPC; a failure is a message on stderr and exit code 1.
 */
import fs from 'node:fs'
import { ANONYMOUS } from '../../src/library/access.js'
import { importBundle, importPayload } from '../../src/airgap/import.js'
import { resolveConfig } from '../../src/config.js'
import { waitForJob } from '../../src/jobs/wait.js'
import { installLicense, requireOfflineLicense } from '../../src/license/state.js'
import { openRuntime } from '../../src/runtime.js'
import { kernelPeakRss, resetPeakRss } from './rss.js'

export interface ImportChildReport {
  libraries: number
  queuedMs: number
  searchableMs: number
  /** Resident memory once the data directory is open, before the import. */
  idleRss: number
  /** The kernel's peak resident set (VmHWM, reset before the import) once every library is queued: reading, validating and staging. */
  stagingPeakRss: number | null
  /** The same at the end, the import jobs included (they run in this process, as in `lectern import`). */
  kernelPeakRss: number | null
  /** The highest process.memoryUsage().rss seen, sampled every 50 ms, for where /proc is absent. */
  sampledPeakRss: number
  answerSnippets: number
}

const SAMPLE_MS = 50

async function main(): Promise<ImportChildReport> {
  const [dataDir, file, licenseFile] = process.argv.slice(2)
  const runtime = await openRuntime({ config: resolveConfig({ dataDir }).config })
  try {
    await installLicense(runtime, fs.readFileSync(licenseFile, 'utf8'))
    const idleRss = process.memoryUsage().rss
    resetPeakRss()
    let sampledPeakRss = idleRss
    const sampler = setInterval(() => (sampledPeakRss = Math.max(sampledPeakRss, process.memoryUsage().rss)), SAMPLE_MS)
    try {
      const start = performance.now()
      await requireOfflineLicense(runtime, 'Library import')
      const result = file.endsWith('.zip') ? await importBundle(runtime.store, file, false) : await importPayload(runtime.store, file, file, false)
      const queuedMs = performance.now() - start
      const stagingPeakRss = kernelPeakRss()
      if (result.skipped.length > 0) throw new Error(`the bundle was not imported whole: ${JSON.stringify(result.skipped.slice(0, 3))}`)
      for (const job of result.jobs) {
        const ended = await waitForJob(runtime, job.pk)
        if (ended.state === 'failed') throw new Error(`import job ${job.pk} failed: ${ended.errorMessage}`)
      }
      const answer = await runtime.retriever.getContext({ libraryId: result.queued[0], query: 'how to install and configure', tokens: 2000, caller: ANONYMOUS })
      const searchableMs = performance.now() - start
      sampledPeakRss = Math.max(sampledPeakRss, process.memoryUsage().rss)
      return { libraries: result.queued.length, queuedMs, searchableMs, idleRss, stagingPeakRss, kernelPeakRss: kernelPeakRss(), sampledPeakRss, answerSnippets: answer.snippets.length }
    } finally {
      clearInterval(sampler)
    }
  } finally {
    await runtime.close()
  }
}

try {
  const report = await main()
  process.send?.(report, () => process.disconnect())
} catch (err) {
  console.error((err as Error).stack ?? String(err))
  process.exitCode = 1
  process.disconnect?.()
}
