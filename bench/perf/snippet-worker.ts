/**
 * Worker thread that generates the next library's snippets while the main thread ingests the
 * current one: token counting and hashing are CPU work that would otherwise double the build.
 */
import { parentPort } from 'node:worker_threads'
import { librarySnippets } from './docs.js'

parentPort?.on('message', (job: { library: number; count: number }) => {
  parentPort?.postMessage(librarySnippets(job.library, job.count))
})
