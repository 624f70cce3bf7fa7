/**
 * Creates one backup archive. Written as `.<name>.partial`, fsynced, renamed and its directory
 * fsynced: a reader (or a crash) never sees half an archive under the final name.
 *
 * An SQLite store's database is a `VACUUM INTO` snapshot taken from a separate read-only
 * connection, so it is one transaction-consistent state even while the server writes; the
 * manifest, the library states and the vector files all come from that snapshot. Uploaded specs
 * (uploads/) are the files a refresh of an uploaded OpenAPI library reads; they are taken as they
 * are just after the snapshot. The data directory's secret.key goes with them.
 *
 * A PostgreSQL store's archive holds its `pg_dump` (store/postgres-dump.ts), taken in the snapshot
 * the manifest is read in, while every replica goes on serving. The dump holds the uploads and
 * the vectors of real embedders; vector index files are derived, and left out. The key is not in
 * it: it is LECTERN_SECRET_KEY, kept with the replicas' secrets, and the manifest names its
 * fingerprint.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import zlib from 'node:zlib'
import * as tar from 'tar'
import { makeDirectory } from '../install/make-dir.js'
import { vectorIndexPath } from '../install/paths.js'
import { ensureSecretsCanary } from '../secrets/canary.js'
import type { Store } from '../store/index.js'
import { APP_VERSION } from '../install/version.js'
import { DATABASE_MEMBER, DUMP_MEMBER, FORMAT_VERSION, KEY_MEMBER, SQLITE_FORMAT_VERSION, MANIFEST_MEMBER, SAFE_MEMBER_PATH, UPLOADS_PREFIX, VECTORS_PREFIX, type Manifest } from './manifest.js'
import { fsyncDir, fsyncFile } from './fsync.js'
import { archiveName, PARTIAL_PATTERN, partialName } from './names.js'

export interface CreatedArchive {
  name: string
  file: string
  size: number
  manifest: Manifest
}

export type BackupStage = 'snapshot' | 'dump' | 'vectors' | 'compress' | 'sync' | 'upload' | 'prune'
export type Progress = (stage: BackupStage) => void

export interface CreateArchiveOptions {
  now?: () => Date
  onProgress?: Progress
  /** Names already used at the final destination (S3), besides files in `outDir`. */
  taken?: ReadonlySet<string>
}

/**
 * Builds the archive in `outDir`. The caller holds the backup lock, which is what makes sweeping
 * partials and the work directory safe: no other backup of this data dir can be writing them.
 */
export async function createArchive(store: Store, outDir: string, options: CreateArchiveOptions = {}): Promise<CreatedArchive> {
  const now = options.now ?? (() => new Date())
  const progress = options.onProgress ?? (() => {})
  makeDirectory(outDir)
  await sweepPartials(outDir)
  const work = store.paths.backupWork
  await fsp.rm(work, { recursive: true, force: true })
  await fsp.mkdir(path.join(work, 'vectors'), { recursive: true, mode: 0o700 })
  await fsp.mkdir(path.join(work, 'uploads'), { recursive: true, mode: 0o700 })
  const name = await freeName(outDir, now, options.taken ?? new Set())
  const partial = path.join(outDir, partialName(name))
  const final = path.join(outDir, name)
  try {
    const onPostgres = store.database.kind === 'postgres'
    progress(onPostgres ? 'dump' : 'snapshot')
    await ensureSecretsCanary(store.settings, store.secrets)
    // Read from the snapshot itself, never from the live database, so the manifest describes
    // exactly the data in the archive.
    const facts = await store.snapshot(path.join(work, onPostgres ? DUMP_MEMBER : DATABASE_MEMBER))
    let memberPaths = [DUMP_MEMBER]
    let vectors: Manifest['vectors'] = []
    if (!onPostgres) {
      progress('vectors')
      const linked = await linkVectorFiles(store, work, facts.liveSets)
      const uploads = await linkUploads(store, work)
      await fsp.copyFile(store.paths.secretKey, path.join(work, KEY_MEMBER))
      memberPaths = [DATABASE_MEMBER, KEY_MEMBER, ...linked.members, ...uploads]
      vectors = linked.vectors
    }
    const members = []
    for (const member of memberPaths) members.push({ path: member, ...(await hashFile(path.join(work, member))) })
    const manifest: Manifest = {
      formatVersion: onPostgres ? FORMAT_VERSION : SQLITE_FORMAT_VERSION,
      appVersion: APP_VERSION,
      createdAt: now().toISOString(),
      migrations: facts.migrations,
      keyFingerprint: store.secrets.keyFingerprint,
      libraries: facts.libraries,
      vectors,
      members,
    }
    await fsp.writeFile(path.join(work, MANIFEST_MEMBER), JSON.stringify(manifest, null, 2), { mode: 0o600 })
    progress('compress')
    // The manifest goes first so a reader can learn what an archive holds from its first block.
    const pack = tar.create({ cwd: work, portable: true }, [MANIFEST_MEMBER, ...memberPaths])
    // tar's own gzip compresses on this thread, in one synchronous call per 16 MB read (seconds
    // of a blocked event loop on a large store); zlib's stream compresses on the thread pool.
    await pipeline(pack, zlib.createGzip(), fs.createWriteStream(partial, { flags: 'wx', mode: 0o600 }))
    progress('sync')
    await fsyncFile(partial)
    await fsp.rename(partial, final)
    await fsyncDir(outDir)
    const { size } = await fsp.stat(final)
    return { name, file: final, size, manifest }
  } catch (err) {
    await fsp.rm(partial, { force: true })
    throw err
  } finally {
    await fsp.rm(work, { recursive: true, force: true })
  }
}

/** Removes partial archives that an interrupted backup (crash, SIGKILL, full disk) left behind. */
export async function sweepPartials(dir: string): Promise<string[]> {
  let entries: string[]
  try {
    entries = await fsp.readdir(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  const stale = entries.filter((e) => PARTIAL_PATTERN.test(e))
  for (const entry of stale) await fsp.rm(path.join(dir, entry), { force: true })
  return stale
}

/** Names have one-second resolution; a second backup within the same second waits for the next. */
async function freeName(outDir: string, now: () => Date, taken: ReadonlySet<string>): Promise<string> {
  for (;;) {
    const name = archiveName(now())
    if (!taken.has(name) && !fs.existsSync(path.join(outDir, name))) return name
    await new Promise((resolve) => setTimeout(resolve, 1000 - (now().getTime() % 1000) + 5))
  }
}

/**
 * Vector files are written once and renamed into place, so a hard link is a consistent copy at no
 * cost. A file that vanished since the snapshot (its set was replaced) is left out: vector
 * indexes are derived data and the next start rebuilds any that is missing.
 */
async function linkVectorFiles(store: Store, work: string, setPks: number[]): Promise<{ vectors: Manifest['vectors']; members: string[] }> {
  const vectors: Manifest['vectors'] = []
  const members: string[] = []
  for (const setPk of setPks) {
    const source = vectorIndexPath(store.paths, setPk)
    const files = [path.basename(source), `${path.basename(source)}.json`]
    try {
      const sidecar = JSON.parse(await fsp.readFile(`${source}.json`, 'utf8')) as { count: number }
      for (const file of files) await linkOrCopy(path.join(store.paths.vectors, file), path.join(work, 'vectors', file))
      vectors.push({ setPk, count: sidecar.count })
      members.push(...files.map((file) => `${VECTORS_PREFIX}${file}`))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
  }
  return { vectors, members }
}

/**
 * Uploaded specs are saved under a temporary dot-name and renamed into place, so a hard link is a
 * whole file, never half of one; the temporary names (and anything that is not a plain file) are
 * left out. A file removed since it was listed (a re-upload in another format) is left out too.
 */
async function linkUploads(store: Store, work: string): Promise<string[]> {
  let entries: fs.Dirent[]
  try {
    entries = await fsp.readdir(store.paths.uploads, { withFileTypes: true })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  const members: string[] = []
  for (const entry of entries.filter((e) => e.isFile() && SAFE_MEMBER_PATH.test(e.name)).sort((a, b) => a.name.localeCompare(b.name))) {
    try {
      await linkOrCopy(path.join(store.paths.uploads, entry.name), path.join(work, 'uploads', entry.name))
      members.push(`${UPLOADS_PREFIX}${entry.name}`)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
  }
  return members
}

async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await fsp.link(from, to)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV' && (err as NodeJS.ErrnoException).code !== 'EPERM') throw err
    await fsp.copyFile(from, to)
  }
}

async function hashFile(file: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of fs.createReadStream(file)) {
    hash.update(chunk as Buffer)
    size += (chunk as Buffer).length
  }
  return { size, sha256: hash.digest('hex') }
}
