/**
 * Reads an archive end to end and trusts nothing it has not checked: gzip and tar integrity
 * (truncation and bit flips fail the gzip CRC or the tar parser, both strict), `manifest.json`
 * first and valid, every other member a plain file that the manifest names, once, with a safe
 * relative path, and the exact size and sha256 the manifest records; nothing missing. When asked
 * to extract, it writes only such members, into a directory the caller made for it.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import { Writable } from 'node:stream'
import * as tar from 'tar'
import { MIGRATIONS } from '../../migrations/index.js'
import { LecternError } from '../errors.js'
import { APP_VERSION, compareVersions } from '../version.js'
import { FORMAT_VERSION, MANIFEST_MEMBER, ManifestSchema, SAFE_MEMBER_PATH, type Manifest } from './manifest.js'

const MAX_MANIFEST_BYTES = 4 * 1024 * 1024

const invalid = (archive: string, why: string) => new LecternError('archive_invalid', `${path.basename(archive)} cannot be restored: ${why}. Nothing was changed.`)

/** Validates `archive` completely; with `extractTo`, also writes its members there. */
export async function scanArchive(archive: string, extractTo?: string): Promise<Manifest> {
  let manifestRead: Promise<Manifest | undefined> | undefined
  const seen = new Map<string, { size: number; sha256: string }>()
  const names = new Set<string>()
  let problem: string | undefined
  const pending: Promise<unknown>[] = []
  const refuse = (entry: tar.ReadEntry, why: string) => {
    problem ??= why
    entry.resume()
  }
  // Awaited together after parsing; marked handled now so an early failure is not reported as unhandled.
  const track = (work: Promise<unknown>) => {
    work.catch(() => {})
    pending.push(work)
  }
  try {
    await tar.t({
      file: archive,
      strict: true,
      noResume: true,
      onReadEntry: (entry) => {
        if (problem) return void entry.resume()
        const name = entry.path
        if (entry.type !== 'File') return refuse(entry, `member ${JSON.stringify(name)} is a ${entry.type}, only plain files are accepted`)
        if (!SAFE_MEMBER_PATH.test(name)) {
          return refuse(entry, `member ${JSON.stringify(name)} has an unsafe path`)
        }
        if (names.has(name)) return refuse(entry, `member ${name} appears twice`)
        names.add(name)
        if (!manifestRead) {
          if (name !== MANIFEST_MEMBER) return refuse(entry, `${MANIFEST_MEMBER} is missing (the first member is ${name})`)
          if (entry.size > MAX_MANIFEST_BYTES) return refuse(entry, `${MANIFEST_MEMBER} is too large`)
          manifestRead = readManifest(entry)
          track(manifestRead.then((m) => void (m ?? (problem ??= `${MANIFEST_MEMBER} is not a valid Lectern manifest`))))
          return
        }
        // Entries arrive while the manifest is still being parsed; each waits for it (its body buffers meanwhile).
        track(
          manifestRead.then(async (m) => {
            if (!m || problem) return void entry.resume()
            if (!m.members.some((member) => member.path === name)) return refuse(entry, `member ${name} is not listed in the manifest`)
            seen.set(name, await consume(entry, extractTo))
          }),
        )
      },
    })
    await Promise.all(pending)
  } catch (err) {
    if (err instanceof LecternError) throw err
    throw invalid(archive, `it is damaged or not a gzip tar archive (${(err as Error).message})`)
  }
  const manifest = await manifestRead
  if (problem) throw invalid(archive, problem)
  if (!manifest) throw invalid(archive, `${MANIFEST_MEMBER} is missing`)
  for (const member of manifest.members) {
    const got = seen.get(member.path)
    if (!got) throw invalid(archive, `member ${member.path} named in the manifest is missing`)
    if (got.size !== member.size || got.sha256 !== member.sha256) throw invalid(archive, `member ${member.path} does not match its checksum`)
  }
  return manifest
}

/** Entry bodies are consumed in order as the parser yields them; a manifest is small by check. */
async function readManifest(entry: tar.ReadEntry): Promise<Manifest | undefined> {
  const chunks: Buffer[] = []
  for await (const chunk of entry) chunks.push(chunk as Buffer)
  try {
    const parsed = ManifestSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

async function consume(entry: tar.ReadEntry, extractTo: string | undefined): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256')
  let size = 0
  const sink = extractTo ? await openTarget(extractTo, entry.path) : undefined
  await pipeline(
    entry,
    new Writable({
      write(chunk: Buffer, _enc, callback) {
        hash.update(chunk)
        size += chunk.length
        if (sink) sink.write(chunk, callback)
        else callback()
      },
      final(callback) {
        if (sink) sink.end(callback)
        else callback()
      },
    }),
  )
  return { size, sha256: hash.digest('hex') }
}

async function openTarget(root: string, member: string): Promise<fs.WriteStream> {
  const file = path.join(root, ...member.split('/'))
  await fsp.mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  // 'wx': a member can never overwrite anything, not even another member.
  return fs.createWriteStream(file, { flags: 'wx', mode: 0o600 })
}

/**
 * An archive from a newer Lectern (a newer format, app version or a migration this build does not
 * know) is refused: its schema cannot be read safely here. An older one is accepted; the database
 * migrates at the next start.
 */
export function checkCompatibility(manifest: Manifest): void {
  const known = new Set(MIGRATIONS.map(([name]) => name))
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
