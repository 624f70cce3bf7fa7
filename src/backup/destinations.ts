/**
 * Where archives go: a local or network directory, or an S3 bucket (AWS or S3-compatible).
 * Every archive is first written completely in a local directory (`stagingDir`); `store` then
 * delivers it. For a directory that is a no-op (the archive was written there, renamed into
 * place). For S3 it is a multipart upload that is aborted on failure, so no object is left, and
 * the local file is removed either way. Only names matching the archive pattern are listed,
 * downloaded or removed.
 */
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import type { S3ClientConfig } from '@aws-sdk/client-s3'
import { isDiskFull } from '../install/disk-full.js'
import { isLecternError, LecternError } from '../errors.js'
import { randomBytes } from 'node:crypto'
import { makeDirectory } from '../install/make-dir.js'
import { outboundNodeAgent } from '../net/outbound.js'
import { archiveTime, isArchiveName } from './names.js'

export interface ArchiveInfo {
  name: string
  size: number
  createdAt: string
  destination: string
}

export interface Destination {
  /** `dir:/abs/path` or `s3://bucket/prefix`, for status and lists. */
  readonly label: string
  readonly kind: 'dir' | 's3'
  readonly stagingDir: string
  store(file: string, name: string): Promise<void>
  list(): Promise<ArchiveInfo[]>
  download(name: string): Promise<Readable>
  remove(name: string): Promise<void>
  /**
   * Checks that a backup could be delivered here: lists, writes a small probe object and removes
   * it. Throws `validation_error` naming the step that failed and the reason.
   */
  probe(): Promise<void>
}

export interface S3Settings {
  bucket: string
  region: string
  accessKeyId: string
  secretAccessKey: string
  endpoint: string
  forcePathStyle: boolean
  prefix: string
}

/** Never an archive name, so a probe left behind by a crash is neither listed nor pruned. */
const probeName = () => `.lectern-probe-${randomBytes(6).toString('hex')}`

function checkName(name: string): void {
  if (!isArchiveName(name)) throw new LecternError('validation_error', `"${name}" is not a Lectern archive name (lectern-backup-YYYY-MM-DDTHH-MM-SS.tar.gz).`)
}

const info = (name: string, size: number, destination: string): ArchiveInfo => ({
  name,
  size,
  createdAt: archiveTime(name)!.toISOString(),
  destination,
})

export function directoryDestination(dir: string): Destination {
  const root = path.resolve(dir)
  const label = `dir:${root}`
  return {
    label,
    kind: 'dir',
    stagingDir: root,
    async store() {},
    async list() {
      let names: string[]
      try {
        names = await fsp.readdir(root)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
        throw err
      }
      const archives: ArchiveInfo[] = []
      for (const name of names.filter(isArchiveName)) {
        const stat = await fsp.lstat(path.join(root, name)).catch(() => undefined)
        if (stat?.isFile()) archives.push(info(name, stat.size, label))
      }
      return archives.sort((a, b) => b.name.localeCompare(a.name))
    },
    async download(name) {
      checkName(name)
      const file = path.join(root, name)
      const stat = await fsp.lstat(file).catch(() => undefined)
      if (!stat?.isFile()) throw new LecternError('backup_not_found', `No archive ${name} in ${root}.`)
      return fs.createReadStream(file)
    },
    async remove(name) {
      checkName(name)
      await fsp.unlink(path.join(root, name))
    },
    async probe() {
      prepareArchiveDir(root)
      const file = path.join(root, probeName())
      try {
        await fsp.readdir(root)
        await fsp.writeFile(file, 'lectern destination probe\n', { flag: 'wx' })
        await fsp.unlink(file)
      } catch (err) {
        throw archiveDirError(err, root)
      }
    },
  }
}

/** Creates the directory an archive is written in (the destination, or S3's staging directory), or says why it cannot be used. */
export function prepareArchiveDir(dir: string): void {
  try {
    makeDirectory(dir)
  } catch (err) {
    throw archiveDirError(err, dir)
  }
}

/**
 * An OS error creating or writing the archive's directory as a validation error naming the path
 * and the OS's reason: the remedy is another --to or the directory's permissions, and a retry
 * would fail the same way. A full disk stays disk_full; other errors are returned unchanged.
 */
export function archiveDirError(err: unknown, dir: string): unknown {
  const e = err as NodeJS.ErrnoException
  if (!(err instanceof Error) || isLecternError(err) || typeof e.code !== 'string' || isDiskFull(err)) return err
  const failed = e.path ?? dir
  if (e.code === 'ENOTDIR' && isFile(dir)) {
    return new LecternError('validation_error', `The backup destination ${dir} is a file, not a directory: choose a directory for --to.`, {}, { cause: err })
  }
  const reason = /^[A-Z0-9]+: ([^,]+)/.exec(e.message)?.[1] ?? e.message
  return new LecternError('validation_error', `Cannot create or write the backup destination ${dir}: ${e.syscall ?? 'access'} ${failed} failed with ${e.code} (${reason}).`, {}, { cause: err })
}

function isFile(target: string): boolean {
  try {
    return fs.statSync(target).isFile()
  } catch {
    return false
  }
}

/** Normalises a key prefix to `''` or `something/`, the form S3 listings compare against. */
export function normalisePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+/, '')
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`
}

export function s3ClientConfig(settings: S3Settings): S3ClientConfig {
  // The SDK's own handler speaks node:http, so it takes the outbound proxy as a Node agent.
  const agent = outboundNodeAgent()
  return {
    ...(agent ? { requestHandler: { httpAgent: agent, httpsAgent: agent } } : {}),
    region: settings.region || 'us-east-1',
    forcePathStyle: settings.forcePathStyle,
    ...(settings.endpoint
      ? {
          endpoint: settings.endpoint,
          // S3-compatible stores (MinIO, Ceph, s3rver) reject the SDK's default CRC32 trailers.
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        }
      : {}),
    // Blank static keys mean the AWS default credential chain (env, profile, instance role).
    ...(settings.accessKeyId ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } } : {}),
  }
}

/** Multipart part size: the S3 minimum, so memory stays at 4 parts of 5 MiB in flight. */
const PART_SIZE = 5 * 1024 * 1024

/**
 * The AWS SDK takes a third of a second to import, and most installs back up to a directory: it
 * is imported when an S3 destination is first used, not by every command that reads the backup
 * settings.
 */
async function connect(settings: S3Settings) {
  const [s3, { Upload }] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')])
  return { s3, Upload, client: new s3.S3Client(s3ClientConfig(settings)) }
}

export function s3Destination(settings: S3Settings, stagingDir: string): Destination {
  let connection: ReturnType<typeof connect> | undefined
  const connected = () => (connection ??= connect(settings))
  const prefix = normalisePrefix(settings.prefix)
  const label = `s3://${settings.bucket}/${prefix}`
  const key = (name: string) => `${prefix}${name}`
  return {
    label,
    kind: 's3',
    stagingDir,
    async store(file, name) {
      try {
        const { client, Upload } = await connected()
        const upload = new Upload({
          client,
          params: { Bucket: settings.bucket, Key: key(name), Body: fs.createReadStream(file), ContentType: 'application/gzip' },
          partSize: PART_SIZE,
          queueSize: 4,
          // The default, stated: a failed multipart upload is aborted so no parts linger.
          leavePartsOnError: false,
        })
        await upload.done()
      } catch (err) {
        throw new LecternError('internal_error', `Upload of ${name} to ${label} failed: ${(err as Error).message}`, {}, { cause: err })
      } finally {
        await fsp.rm(file, { force: true })
      }
    },
    async list() {
      const archives: ArchiveInfo[] = []
      const { client, s3 } = await connected()
      let token: string | undefined
      do {
        const page = await client.send(new s3.ListObjectsV2Command({ Bucket: settings.bucket, Prefix: prefix, ContinuationToken: token }))
        for (const object of page.Contents ?? []) {
          const name = object.Key?.slice(prefix.length) ?? ''
          if (isArchiveName(name)) archives.push(info(name, object.Size ?? 0, label))
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined
      } while (token)
      return archives.sort((a, b) => b.name.localeCompare(a.name))
    },
    async download(name) {
      checkName(name)
      const { client, s3 } = await connected()
      try {
        const object = await client.send(new s3.GetObjectCommand({ Bucket: settings.bucket, Key: key(name) }))
        return object.Body as Readable
      } catch (err) {
        if ((err as { name?: string }).name === 'NoSuchKey') throw new LecternError('backup_not_found', `No archive ${name} in ${label}.`)
        throw err
      }
    },
    async remove(name) {
      checkName(name)
      const { client, s3 } = await connected()
      await client.send(new s3.DeleteObjectCommand({ Bucket: settings.bucket, Key: key(name) }))
    },
    async probe() {
      const { client, s3 } = await connected()
      const probeKey = key(probeName())
      const step = async (what: string, send: () => Promise<unknown>) => {
        try {
          await send()
        } catch (err) {
          const e = err as Error
          throw new LecternError('validation_error', `The S3 destination ${label} cannot be ${what}: ${e.name}: ${e.message}`, {}, { cause: err })
        }
      }
      // One page of the listing a backup's retention reads. (Asking for one key only trips s3rver,
      // and perhaps other S3-compatible stores, once the prefix holds several objects.)
      await step('listed', () => client.send(new s3.ListObjectsV2Command({ Bucket: settings.bucket, Prefix: prefix })))
      await step('written', () => client.send(new s3.PutObjectCommand({ Bucket: settings.bucket, Key: probeKey, Body: 'lectern destination probe\n' })))
      await step('cleaned up (the probe object could not be removed)', () => client.send(new s3.DeleteObjectCommand({ Bucket: settings.bucket, Key: probeKey })))
    },
  }
}

/** `s3://bucket/some/prefix` -> bucket and prefix; anything else is a directory path. */
export function parseTarget(target: string): { kind: 'dir'; path: string } | { kind: 's3'; bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(target)
  if (m) return { kind: 's3', bucket: m[1]!, prefix: normalisePrefix(m[2]!) }
  if (target.startsWith('s3:')) throw new LecternError('validation_error', `"${target}" is not an s3://bucket/prefix URL.`)
  return { kind: 'dir', path: path.resolve(target) }
}
