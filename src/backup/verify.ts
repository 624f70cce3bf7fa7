/**
 * Reads an archive end to end and trusts nothing it has not checked: gzip and tar integrity
 * (truncation and bit flips fail the gzip CRC or the tar parser, both strict), `manifest.json`
 * first and valid, every other member a plain file that the manifest names, once, with a safe
 * relative path, and the exact size and sha256 the manifest records; nothing missing. When asked
 * to extract, it writes only such members, into a directory the caller made for it.
 *
 * Guarantee against decompression bombs: the archive is inflated as a stream with backpressure
 * (bounded memory whatever it holds), a member whose tar header claims more than the manifest
 * records is refused before its body is read, the manifest's total may not exceed RATIO_LIMIT
 * times the archive's size (nor the free disk when extracting), and the inflated stream as a
 * whole is cut off as soon as it passes what the manifest declares. The first problem stops the
 * read at once.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { Transform, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import * as tar from 'tar'
import { MIGRATIONS } from '../../migrations/index.js'
import { POSTGRES_MIGRATIONS } from '../../migrations/postgres/index.js'
import { asDiskFull } from '../install/disk-full.js'
import { LecternError } from '../errors.js'
import { APP_VERSION, compareVersions } from '../install/version.js'
import { archiveStore, FORMAT_VERSION, MANIFEST_MEMBER, ManifestSchema, SAFE_MEMBER_PATH, type Manifest } from './manifest.js'

const MAX_MANIFEST_BYTES = 4 * 1024 * 1024
/**
 * The most an archive may unpack to, as a multiple of its size. Real archives unpack to a few
 * times their size (about 20 for a nearly empty database, less as it fills with text and vectors);
 * a stream of zeros, the stuff of bombs, to a thousand.
 */
export const RATIO_LIMIT = 200
/** Below this, any ratio is allowed: a small archive cannot unpack to anything harmful. */
const RATIO_FLOOR_BYTES = 64 * 1024 * 1024
/** Tar's own bytes around the members: headers (with pax extensions), padding, end blocks. */
const TAR_OVERHEAD_BYTES = 1024 * 1024
const TAR_OVERHEAD_PER_MEMBER = 4096
const READ_CHUNK = 64 * 1024
/** Magic numbers of a second compression layer, which the tar parser would otherwise inflate unchecked. */
const NESTED_COMPRESSION = [Buffer.from([0x1f, 0x8b]), Buffer.from([0x28, 0xb5, 0x2f, 0xfd])]

const invalid = (archive: string, why: string) => new LecternError('archive_invalid', `${path.basename(archive)} cannot be restored: ${why}. Nothing was changed.`)

export interface ScanOptions {
  /** Write the members into this directory (made by the caller, removed by it on failure). */
  extractTo?: string
  /** Which members to write when extracting; every member is still checked. Default: all. */
  extract?: (member: string) => boolean
  /** Called with the manifest before any member is read; throws to refuse the archive. */
  check?: (manifest: Manifest) => void
}

/** Stops the scan; the message (or the error) is what the caller is told. */
class Stop extends Error {
  constructor(readonly reason: string | LecternError) {
    super(typeof reason === 'string' ? reason : reason.message)
  }
}

/** Validates `archive` completely; with `extractTo`, also writes its members there. */
export async function scanArchive(archive: string, options: ScanOptions = {}): Promise<Manifest> {
  const compressedBytes = (await fsp.stat(archive)).size
  const wanted = options.extract ?? (() => true)
  let manifest: Manifest | undefined
  let inflatedCap = MAX_MANIFEST_BYTES + TAR_OVERHEAD_BYTES
  const seen = new Map<string, { size: number; sha256: string }>()
  const names = new Set<string>()
  const consumers: Promise<void>[] = []
  const targets = new Targets()
  const parser = new tar.Parser({ strict: true })
  const toParser = parserSink(parser)
  const stop = (reason: string | LecternError) => {
    toParser.destroy(new Stop(reason))
  }

  const onManifest = (chunks: Buffer[]) => {
    const parsed = parseManifest(Buffer.concat(chunks))
    if (!parsed) return stop(`${MANIFEST_MEMBER} is not a valid Lectern manifest`)
    try {
      options.check?.(parsed)
    } catch (err) {
      return stop(err instanceof LecternError ? err : String(err))
    }
    const declared = parsed.members.reduce((sum, m) => sum + m.size, 0)
    const allowed = Math.max(RATIO_LIMIT * compressedBytes, RATIO_FLOOR_BYTES)
    if (declared > allowed) {
      return stop(`its manifest declares ${declared} bytes unpacked from a ${compressedBytes}-byte archive, more than ${RATIO_LIMIT} times its size`)
    }
    if (options.extractTo) {
      const extracted = parsed.members.filter((m) => wanted(m.path)).reduce((sum, m) => sum + m.size, 0)
      const room = freeSpaceProblem(options.extractTo, extracted)
      if (room) return stop(room)
    }
    inflatedCap = chunks.reduce((sum, c) => sum + c.length, 0) + declared + TAR_OVERHEAD_BYTES + TAR_OVERHEAD_PER_MEMBER * parsed.members.length
    manifest = parsed
  }

  parser.on('entry', (entry: tar.ReadEntry) => {
    if (toParser.destroyed) return void entry.resume()
    const name = entry.path
    if (entry.type !== 'File') return stop(`member ${JSON.stringify(name)} is a ${entry.type}, only plain files are accepted`)
    if (!SAFE_MEMBER_PATH.test(name)) return stop(`member ${JSON.stringify(name)} has an unsafe path`)
    if (names.has(name)) return stop(`member ${name} appears twice`)
    names.add(name)
    if (names.size === 1) {
      if (name !== MANIFEST_MEMBER) return stop(`${MANIFEST_MEMBER} is missing (the first member is ${name})`)
      if (entry.size > MAX_MANIFEST_BYTES) return stop(`${MANIFEST_MEMBER} is too large`)
      const chunks: Buffer[] = []
      entry.on('data', (chunk: Buffer) => chunks.push(chunk))
      entry.on('end', () => onManifest(chunks))
      return
    }
    // The manifest entry ends (and is parsed) before the parser hands out the next one.
    const member = manifest?.members.find((m) => m.path === name)
    if (!member) return stop(`member ${name} is not listed in the manifest`)
    if (entry.size > member.size) return stop(`member ${name} is ${entry.size} bytes, more than the ${member.size} its manifest records`)
    const work = consume(entry, options.extractTo && wanted(name) ? options.extractTo : undefined, targets).then((got) => void seen.set(name, got))
    // Awaited after the stream; marked handled now so an early failure is not reported as unhandled.
    work.catch(() => {})
    consumers.push(work)
  })

  try {
    await pipeline(fs.createReadStream(archive, { highWaterMark: READ_CHUNK }), createGunzip({ chunkSize: READ_CHUNK }), inflationLimit(() => inflatedCap), toParser)
    await Promise.all(consumers)
  } catch (err) {
    await targets.abort()
    if (err instanceof Stop) throw typeof err.reason === 'string' ? invalid(archive, err.reason) : err.reason
    if (err instanceof LecternError) throw err
    const full = asDiskFull(err, `extracting ${path.basename(archive)}`, options.extractTo)
    if (full !== err) throw full
    throw invalid(archive, `it is damaged or not a gzip tar archive (${(err as Error).message})`)
  }
  if (!manifest) throw invalid(archive, `${MANIFEST_MEMBER} is missing`)
  for (const member of manifest.members) {
    const got = seen.get(member.path)
    if (!got) throw invalid(archive, `member ${member.path} named in the manifest is missing`)
    if (got.size !== member.size || got.sha256 !== member.sha256) throw invalid(archive, `member ${member.path} does not match its checksum`)
  }
  return manifest
}

function parseManifest(bytes: Buffer): Manifest | undefined {
  try {
    const parsed = ManifestSchema.safeParse(JSON.parse(bytes.toString('utf8')))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/** Passes the inflated stream on while it stays under the cap; refuses a nested compression layer. */
function inflationLimit(cap: () => number): Transform {
  let total = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (total === 0 && NESTED_COMPRESSION.some((magic) => chunk.subarray(0, magic.length).equals(magic))) {
        return callback(new Stop('it is compressed twice'))
      }
      total += chunk.length
      if (total > cap()) return callback(new Stop(`it unpacks to more than the ${cap()} bytes its manifest accounts for`))
      callback(null, chunk)
    },
  })
}

/** The tar parser as a stream sink that honours its backpressure (it asks for a pause while an entry's consumer is busy). */
function parserSink(parser: tar.Parser): Writable {
  const sink = new Writable({
    highWaterMark: READ_CHUNK,
    write(chunk: Buffer, _encoding, callback) {
      if (parser.write(chunk)) callback()
      else parser.once('drain', () => callback())
    },
    final(callback) {
      parser.once('end', () => callback())
      parser.end()
    },
  })
  parser.on('error', (err: Error) => sink.destroy(err))
  return sink
}

async function consume(entry: tar.ReadEntry, extractTo: string | undefined, targets: Targets): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256')
  let size = 0
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk)
      size += chunk.length
      callback(null, chunk)
    },
  })
  const sink = extractTo ? await targets.open(extractTo, entry.path) : undefined
  // Without a file to write, the measured bytes are dropped as they pass.
  await pipeline(entry, measure, sink ?? new Writable({ write: (_chunk, _encoding, callback) => callback() }))
  return { size, sha256: hash.digest('hex') }
}

/**
 * The files a scan writes. When the scan fails, `abort` returns only once every file is closed and
 * no directory or file is still being made, so the caller's removal of the directory cannot race a
 * member that was being opened as the scan stopped (rm then failed with ENOTEMPTY).
 */
class Targets {
  private stopped = false
  private readonly streams = new Set<fs.WriteStream>()
  private readonly closed: Promise<void>[] = []

  async open(root: string, member: string): Promise<fs.WriteStream> {
    const file = path.join(root, ...member.split('/'))
    const opening = fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 }).then(() =>
      // 'wx': a member can never overwrite anything, not even another member.
      fs.createWriteStream(file, { flags: 'wx', mode: 0o600 }),
    )
    this.closed.push(opening.then((stream) => new Promise<void>((resolve) => stream.once('close', () => resolve())), () => undefined))
    const stream = await opening
    this.streams.add(stream)
    stream.once('close', () => this.streams.delete(stream))
    if (this.stopped) stream.destroy()
    return stream
  }

  async abort(): Promise<void> {
    this.stopped = true
    for (const stream of this.streams) stream.destroy()
    await Promise.all(this.closed)
  }
}

/** Needs room for `bytes` in `dir` plus 10%; the refusal says how much. */
export function freeSpaceProblem(dir: string, bytes: number): LecternError | undefined {
  const stats = fs.statfsSync(dir)
  const free = stats.bavail * stats.bsize
  const needed = Math.ceil(bytes * 1.1)
  if (free >= needed) return undefined
  return new LecternError('restore_refused', `Not enough free disk in ${dir}: the restore needs ${needed} bytes, ${free} are free. Nothing was changed.`)
}

/** Refuses an archive of the other store than `store`, and one from a newer Lectern (checkCompatibility). */
export const checkFor =
  (store: 'sqlite' | 'postgres') =>
  (manifest: Manifest): void => {
    checkCompatibility(manifest)
    const made = archiveStore(manifest)
    if (made !== store) {
      throw new LecternError(
        'restore_refused',
        made === 'postgres'
          ? 'The archive is of an install on PostgreSQL (it holds a pg_dump): restore it with DATABASE_URL set to the database to restore into. Nothing was changed.'
          : 'The archive is of an install on SQLite: restore it into a data directory, without DATABASE_URL. Nothing was changed.',
      )
    }
  }

/**
 * An archive from a newer Lectern (a newer format, app version or a migration this build does not
 * know) is refused: its schema cannot be read safely here. An older one is accepted; the database
 * migrates at the next start.
 */
export function checkCompatibility(manifest: Manifest): void {
  const known = new Set((archiveStore(manifest) === 'postgres' ? POSTGRES_MIGRATIONS : MIGRATIONS).map(([name]) => name))
  const unknown = manifest.migrations.filter((name) => !known.has(name))
  const newer =
    manifest.formatVersion > FORMAT_VERSION
      ? `archive format ${manifest.formatVersion} (this build reads up to ${FORMAT_VERSION})`
      : unknown.length > 0
        ? `schema migrations this build does not know (${unknown.join(', ')})`
        : compareVersions(manifest.appVersion, APP_VERSION) > 0
          ? `Lectern ${manifest.appVersion}`
          : undefined
  if (newer) {
    throw new LecternError('restore_refused', `The archive was made by a newer Lectern: ${newer}; this is Lectern ${APP_VERSION}. Upgrade first, then restore. Nothing was changed.`)
  }
}

export interface ArchiveSummary {
  name: string
  createdAt: string
  appVersion: string
  schemaVersion: string
  libraries: Manifest['libraries']
  members: number
  bytes: number
}

export function summarise(archive: string, manifest: Manifest): ArchiveSummary {
  return {
    name: path.basename(archive),
    createdAt: manifest.createdAt,
    appVersion: manifest.appVersion,
    schemaVersion: manifest.migrations.at(-1) ?? 'none',
    libraries: manifest.libraries,
    members: manifest.members.length,
    bytes: manifest.members.reduce((sum, m) => sum + m.size, 0),
  }
}
