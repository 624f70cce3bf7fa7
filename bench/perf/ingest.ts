/**
 * Ingest throughput through the real product path: a generated docs repo committed to a local
 * git repository, submitted as https://github.com/bench/docs (git rewrites that URL to the
 * local path through GIT_CONFIG_* variables), then processed by the runtime's worker.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { submitRepository } from '../../src/jobs/submit.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { resolveConfig } from '../../src/config.js'
import { markdownRepo } from './docs.js'

export interface IngestResult {
  files: number
  snippets: number
  totalMs: number
  /** Phases, from the job's progress messages and the embedder's first call. */
  cloneMs: number
  discoverMs: number
  parseMs: number
  embedStoreMs: number
  /** Of embedStoreMs: inside the embedder, and inside snippet row + FTS inserts; the rest is mostly the vector index build. */
  embedMs: number
  insertMs: number
  jobMessage: string
}

const GIT_ENV_KEYS = ['GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_CONFIG_VALUE_0'] as const

/** `databaseUrl`: ingest into that PostgreSQL database (LECTERN_SECRET_KEY set) instead of SQLite in the data directory. */
export async function benchIngest(fileCount: number, seed: number, databaseUrl = ''): Promise<IngestResult> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-ingest-'))
  try {
    const remotes = path.join(tmp, 'remotes')
    commitRepo(path.join(remotes, 'docs'), markdownRepo(fileCount, seed))
    const runtime = await openRuntime({ config: resolveConfig({ dataDir: path.join(tmp, 'data'), database: { url: databaseUrl } }).config })
    try {
      return await withGitRedirect(`file://${remotes}/`, 'https://github.com/bench/', () => timedIngest(runtime, fileCount))
    } finally {
      await runtime.close()
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

export function commitRepo(dir: string, files: Array<{ path: string; text: string }>): void {
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(dir, file.path)), { recursive: true })
    fs.writeFileSync(path.join(dir, file.path), file.text)
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' })
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-q', '-m', 'docs')
}

/** git reads GIT_CONFIG_* from process.env (cloneRepo merges it), so the rewrite lives there for the run. */
export async function withGitRedirect<T>(base: string, prefix: string, run: () => Promise<T>): Promise<T> {
  const saved = GIT_ENV_KEYS.map((key) => process.env[key])
  process.env.GIT_CONFIG_COUNT = '1'
  process.env.GIT_CONFIG_KEY_0 = `url.${base}.insteadOf`
  process.env.GIT_CONFIG_VALUE_0 = prefix
  try {
    return await run()
  } finally {
    GIT_ENV_KEYS.forEach((key, i) => {
      if (saved[i] === undefined) delete process.env[key]
      else process.env[key] = saved[i]
    })
  }
}

async function timedIngest(runtime: Runtime, fileCount: number): Promise<IngestResult> {
  const marks = await observePhases(runtime)
  const started = performance.now()
  const { job, libraryId } = await submitRepository(runtime.store, { sourceKind: 'github', docsRepoUrl: 'https://github.com/bench/docs' }, runtime.guard)
  await runtime.worker.drain()
  const ended = performance.now()
  const finished = await runtime.store.jobs.byPk(job.pk)
  if (finished?.state !== 'succeeded') {
    throw new Error(`ingest job ${job.pk} ended ${finished?.state}: ${finished?.errorMessage ?? 'no message'}`)
  }
  const version = (await runtime.store.libraries.version((await runtime.store.libraries.byId(libraryId))!.pk, ''))!
  const at = (prefix: string) => marks.status.find((m) => m.message.startsWith(prefix))?.at ?? Number.NaN
  const firstEmbed = marks.firstEmbed ?? Number.NaN
  return {
    files: fileCount,
    snippets: version.totalSnippets,
    totalMs: ended - started,
    cloneMs: at('finding documentation files') - at('cloning'),
    discoverMs: at('parsing') - at('finding documentation files'),
    parseMs: firstEmbed - at('parsing'),
    embedStoreMs: ended - firstEmbed,
    embedMs: marks.embedMs,
    insertMs: marks.insertMs,
    jobMessage: finished.statusMessage ?? '',
  }
}

interface PhaseMarks {
  status: Array<{ message: string; at: number }>
  firstEmbed?: number
  embedMs: number
  insertMs: number
}

/**
 * Timestamps the job's progress messages and times the embedder's and the snippet inserts'
 * calls by wrapping instance methods the job calls (no product code changes): parsing ends
 * where the first embed begins.
 */
async function observePhases(runtime: Runtime): Promise<PhaseMarks> {
  const marks: PhaseMarks = { status: [], embedMs: 0, insertMs: 0 }
  const jobs = runtime.store.jobs
  const setStatus = jobs.setStatus.bind(jobs)
  jobs.setStatus = (pk, message) => {
    marks.status.push({ message, at: performance.now() })
    return setStatus(pk, message)
  }
  const embedder = await runtime.embedders.current()
  const embed = embedder.embed.bind(embedder)
  embedder.embed = async (texts, signal) => {
    const started = performance.now()
    marks.firstEmbed ??= started
    try {
      return await embed(texts, signal)
    } finally {
      marks.embedMs += performance.now() - started
    }
  }
  const snippets = runtime.store.snippets
  const insert = snippets.insert.bind(snippets)
  snippets.insert = (setPk, items) => {
    const started = performance.now()
    try {
      return insert(setPk, items)
    } finally {
      marks.insertMs += performance.now() - started
    }
  }
  return marks
}
