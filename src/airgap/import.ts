/**
 * Importing libraries (spec 4.2): validate every library of a payload or bundle, stage each
 * valid one as a file under `<dataDir>/imports/` (an input file: on PostgreSQL it moves into the
 * database before its job is queued, sources/input-files.ts), then in one transaction create the
 * new libraries and queue one `import` job per library. The job re-embeds the snippets with this
 * install's provider and swaps them in like any ingest.
 *
 * Guarantees: nothing is stored before the whole request has been validated; a new library
 * is only visible as "processing" until its job succeeds, and a failed job removes it again
 * (its job record stays, detached, with the reason). A forced re-import of an existing library
 * keeps serving the old snippets until the new set is complete.
 */
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import type { EmbedderPool } from '../embed/pool.js'
import { isLecternError, LecternError } from '../errors.js'
import { ingestSnippets } from '../index/build.js'
import { IMPORT_JOB } from '../jobs/kinds.js'
import type { JobHandler } from '../jobs/worker.js'
import { inputFileName, keepInputFile, removeInputFile, withInputFile } from '../sources/input-files.js'
import type { Store } from '../store/index.js'
import type { Job } from '../store/jobs.js'
import { readBundle } from './bundle.js'
import { readLibraryFile, readPayloadFile, type LibraryVisitor } from './payload-stream.js'
import { readStagedLibrary, StagedLibrary, type StagedResult } from './staging.js'

/** Spec 8: at most 100 MB per import, JSON body or bundle. */
export const MAX_IMPORT_BYTES = 100 * 1024 * 1024

export interface ImportResult {
  message: string
  queued: string[]
  skipped: Array<{ project: string; reason: string }>
  /** The queued jobs, for callers that follow them (not part of the HTTP answer). */
  jobs: Job[]
}

const payloadSchema = z.object({ project: z.string(), file: z.string(), created: z.boolean() })

export const importsDir = (store: Store) => path.join(store.paths.root, 'imports')

/** `imports/<request>/<n>.json`, as ImportBatch names a staged library. */
const STAGED_NAME = /^imports\/[0-9a-f-]{36}\/\d+\.json$/

/** Collects the libraries of one request; `commit` stores and queues them, `discard` forgets them. */
export class ImportBatch {
  /** Where this request stages its libraries (staging.ts), and a bundle its inflated entries. */
  readonly dir: string
  private readonly staged: Array<{ id: string; file: string }> = []
  /** The input files this request kept (keepInputFile), which a discard removes. */
  private readonly kept: string[] = []
  private readonly invalid: Array<{ project: string; reason: string }> = []
  private readonly seen = new Set<string>()
  private elements = 0

  constructor(private readonly store: Store) {
    this.dir = path.join(importsDir(store), randomUUID())
  }

  /** Stages the next element of `libraries` as it is read; a duplicate ID rejects the whole request. */
  next(): LibraryVisitor {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 })
    this.elements++
    return new StagedLibrary(path.join(this.dir, `${this.elements}.json`), (result) => this.record(result))
  }

  private record(result: StagedResult): void {
    const key = result.ok ? result.library.id : result.project.toLowerCase().replace(/^\/?/, '/')
    if (this.seen.has(key)) throw new LecternError('validation_error', `Library ${key} appears twice in the import; remove one copy. Nothing was imported.`)
    this.seen.add(key)
    if (result.ok) this.staged.push({ id: result.library.id, file: result.file })
    else this.invalid.push({ project: result.project, reason: result.reason })
  }

  async discard(): Promise<void> {
    fs.rmSync(this.dir, { recursive: true, force: true })
    for (const name of this.kept) await removeInputFile(this.store, name)
  }

  /** Creates new libraries and queues their jobs in one transaction; existing ones only with force. */
  async commit(force: boolean): Promise<ImportResult> {
    const { store } = this
    const skipped = [...this.invalid]
    if (this.staged.length === 0) {
      await this.discard()
      const reasons = skipped.map((s) => `${s.project}: ${s.reason}`).join('; ')
      throw new LecternError('validation_error', `No library of the import is valid (${reasons}). Nothing was imported.`)
    }
    // Before any job is queued: a replica may claim one the moment the transaction commits.
    for (const { file } of this.staged) {
      const name = inputFileName(store, file)
      await keepInputFile(store, name)
      this.kept.push(name)
    }
    const jobs = await store.transaction(async () => {
      const queued: Job[] = []
      for (const { id, file } of this.staged) {
        const name = inputFileName(store, file)
        const existing = await store.libraries.byId(id)
        if (existing && !force) {
          skipped.push({ project: id, reason: 'already exists (import with force to overwrite)' })
          await removeInputFile(store, name)
          continue
        }
        const target = existing
          ? { library: existing, version: await store.libraries.ensureVersion(existing.pk, '') }
          : await store.libraries.create({ id, title: id.split('/')[2], sourceKind: 'import', sourceUrl: '', isImported: true })
        const active = await store.jobs.activeForVersion(target.version.pk)
        if (active) {
          skipped.push({ project: id, reason: `is being processed (job ${active.pk}); import again when it ends` })
          await removeInputFile(store, name)
          continue
        }
        queued.push(
          await store.jobs.enqueue({
            kind: IMPORT_JOB,
            libraryPk: target.library.pk,
            versionPk: target.version.pk,
            payload: { project: id, file: name, created: !existing },
          }),
        )
      }
      return queued
    })
    // Every library already existed (or was busy): nothing will read the staged files.
    if (jobs.length === 0) await this.discard()
    else removeEmptyDir(this.dir)
    const queued = jobs.map((j) => (j.payload as { project: string }).project)
    const message = `Queued ${queued.length} ${queued.length === 1 ? 'library' : 'libraries'} for import${skipped.length ? `; skipped ${skipped.length}` : ''}`
    return { message, queued, skipped, jobs }
  }
}

/**
 * Validates the JSON payload file at `file` snippet by snippet (payload-stream.ts: never a
 * library parsed whole) and queues it; `what` names the file in refusals ("The body").
 */
export async function importPayload(store: Store, file: string, what: string, force: boolean): Promise<ImportResult> {
  const batch = new ImportBatch(store)
  try {
    const payload = await readPayloadFile(file, what, () => batch.next())
    return await batch.commit(force || payload.force)
  } catch (err) {
    // The request's own failure is what the caller must hear, not a failure to clean up after it.
    await batch.discard().catch(() => {})
    throw err
  }
}

/** Validates the bundle zip at `file` entry by entry and queues it. */
export async function importBundle(store: Store, file: string, force: boolean): Promise<ImportResult> {
  const batch = new ImportBatch(store)
  try {
    await readBundle(file, batch.dir, (entryFile, entry) => readLibraryFile(entryFile, entry, batch.next()))
    return await batch.commit(force)
  } catch (err) {
    // The request's own failure is what the caller must hear, not a failure to clean up after it.
    await batch.discard().catch(() => {})
    throw err
  }
}

/** The `import` job: re-embed the staged snippets with the current provider and serve them. */
export function createImportJobHandler(store: Store, embedders: EmbedderPool): JobHandler {
  return async (ctx) => {
    const { project, file, created } = payloadSchema.parse(ctx.job.payload)
    // A staged file is named by the import that staged it, nothing else: a job's payload cannot lead elsewhere.
    if (!STAGED_NAME.test(file)) throw new LecternError('internal_error', `Import job ${ctx.job.pk} names a file outside the imports directory.`)
    try {
      const library = ctx.job.libraryPk === null ? undefined : await store.libraries.byPk(ctx.job.libraryPk)
      const version = ctx.job.versionPk === null ? undefined : await store.libraries.versionByPk(ctx.job.versionPk)
      if (!library || !version) throw new LecternError('library_not_found', `Library ${project} was removed before its import ran.`)
      const { library: valid, snippets } = await withInputFile(store, file, async (staged) => {
        if (staged === undefined) throw new LecternError('internal_error', `The staged import of ${project} is missing; import it again.`)
        return await readStagedLibrary(staged)
      })
      ctx.progress(`re-embedding ${snippets.length} snippets`)
      const result = await ingestSnippets(
        { store, embedder: await embedders.current(), signal: ctx.signal, progress: ctx.progress, log: ctx.log, pace: ctx.pace, fence: ctx.fence },
        { versionPk: version.pk, commitSha: null },
        snippets,
      )
      await store.libraries.markImported(library.pk, valid)
      // The version's snippets came across the air gap: an earlier ingest's report no longer describes them.
      await store.extractionReports.remove(version.pk)
      await removeStaged(store, file)
      return `imported ${project}: ${result.snippets} snippets re-embedded with ${(await embedders.current()).provider}`
    } catch (err) {
      // A shutdown is not a failure: the job runs again at the next start and needs its file.
      if (ctx.signal.aborted) throw err
      await removeStaged(store, file)
      await dropIfNew(store, ctx.job, created)
      // The job may outlive its library: its reason names the project.
      throw new LecternError(isLecternError(err) ? err.code : 'internal_error', `Import of ${project} failed: ${(err as Error).message}`, {}, { cause: err })
    }
  }
}

async function removeStaged(store: Store, name: string): Promise<void> {
  await removeInputFile(store, name)
  // The request's directory goes with its last file; while others remain it stays.
  removeEmptyDir(path.join(store.paths.root, path.dirname(name)))
}

function removeEmptyDir(dir: string): void {
  try {
    fs.rmdirSync(dir)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'ENOTEMPTY' && code !== 'ENOENT') throw err
  }
}

/** A library this import created and never served goes away, keeping the job as the record of why. */
async function dropIfNew(store: Store, job: Job, created: boolean): Promise<void> {
  if (!created || job.libraryPk === null || job.versionPk === null) return
  const version = await store.libraries.versionByPk(job.versionPk)
  if (!version || version.currentSet !== null) return
  await store.jobs.detach(job.pk)
  await store.libraries.remove(job.libraryPk)
}

/** Staged files of a request that never committed (the process died in between) are this old at least. */
const ORPHAN_AGE_MS = 60 * 60 * 1000

/**
 * Removes staged imports that no queued or running job names and that are over an hour old (so
 * a request still staging in another process keeps its files): files in this data directory, and
 * on PostgreSQL those kept in the database, with the chunks of copies into it that never finished.
 * Returns how many were removed.
 */
export async function sweepImportStaging(store: Store, now = Date.now()): Promise<number> {
  const wanted = new Set(
    (await store.jobs.activeOfKind(IMPORT_JOB)).filter((job) => typeof job.payload.file === 'string').map((job) => job.payload.file as string),
  )
  let removed = 0
  if (store.database.kind === 'postgres') {
    const before = new Date(now - ORPHAN_AGE_MS).toISOString()
    await store.inputFiles.removePartial(before)
    for (const file of await store.inputFiles.list('imports/')) {
      if (wanted.has(file.name) || file.createdAt >= before) continue
      await store.inputFiles.remove(file.name)
      removed++
    }
  }
  const root = importsDir(store)
  if (!fs.existsSync(root)) return removed
  for (const request of fs.readdirSync(root, { withFileTypes: true })) {
    const dir = path.join(root, request.name)
    // A request body or bundle being received sits beside the request directories until it is read.
    if (!request.isDirectory()) {
      if (now - fs.statSync(dir).mtimeMs < ORPHAN_AGE_MS) continue
      fs.rmSync(dir, { force: true })
      removed++
      continue
    }
    const names = fs.readdirSync(dir)
    // An empty request directory (an earlier version left those) goes once it is old enough.
    if (names.length === 0 && now - fs.statSync(dir).mtimeMs >= ORPHAN_AGE_MS) fs.rmdirSync(dir)
    for (const name of names) {
      const file = path.join(dir, name)
      if (wanted.has(inputFileName(store, file)) || now - fs.statSync(file).mtimeMs < ORPHAN_AGE_MS) continue
      fs.rmSync(file, { force: true })
      removeEmptyDir(dir)
      removed++
    }
  }
  return removed
}
