/**
 * Uploaded source files (OpenAPI specs) in the data dir's uploads/ folder. The upload route and
 * `lectern add openapi <file>` both save through here, so a file lands the same way from either:
 * written under a temporary name and renamed, so a job never reads half a file.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { LecternError } from '../errors.js'
import type { DataPaths } from '../install/paths.js'

export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024
const EXTENSIONS = ['json', 'yaml', 'yml']

export function uploadPath(paths: DataPaths, name: string): string {
  return path.join(paths.uploads, name)
}

/** The extension of the original file name when it is a spec's, else guessed from the content. */
export function uploadExtension(fileName: string, data: Buffer): string {
  const ext = path.extname(fileName).slice(1).toLowerCase()
  if (EXTENSIONS.includes(ext)) return ext
  return /^\s*\{/.test(data.subarray(0, 64).toString('utf8')) ? 'json' : 'yaml'
}

export function checkUploadSize(bytes: number): void {
  if (bytes > UPLOAD_MAX_BYTES) {
    throw new LecternError('validation_error', `The file is ${bytes} bytes, over the ${UPLOAD_MAX_BYTES / (1024 * 1024)} MB limit for an OpenAPI spec.`)
  }
}

/** Saves `data` as uploads/<slug>.<ext>; the slug must already be a safe file name (slugifySegment). */
export async function saveUpload(paths: DataPaths, slug: string, ext: string, data: Buffer): Promise<string> {
  checkUploadSize(data.length)
  const name = `${slug}.${ext}`
  await mkdir(paths.uploads, { recursive: true })
  const temp = uploadPath(paths, `.${name}.${randomUUID()}.tmp`)
  try {
    await writeFile(temp, data, { mode: 0o600 })
    await rename(temp, uploadPath(paths, name))
  } catch (err) {
    await rm(temp, { force: true })
    throw err
  }
  return name
}

/** Removes the slug's files of other extensions, left behind when a re-upload changed the format. */
export async function removeOtherUploads(paths: DataPaths, slug: string, keep: string): Promise<void> {
  const names = await readdir(paths.uploads).catch(() => [] as string[])
  const stale = names.filter((name) => name !== keep && EXTENSIONS.some((ext) => name === `${slug}.${ext}`))
  await Promise.all(stale.map((name) => rm(uploadPath(paths, name), { force: true })))
}
