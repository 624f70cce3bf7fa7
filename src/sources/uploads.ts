/**
 * Uploaded source files (OpenAPI specs), input files under `uploads/` (input-files.ts: in the data
 * directory on SQLite, in the database on PostgreSQL). The upload route and `lectern add openapi
 * <file>` both save through here, so a file lands the same way from either, and whole: a job never
 * reads half a file.
 */
import path from 'node:path'
import { LecternError } from '../errors.js'
import type { Store } from '../store/index.js'
import { readInputFile, removeInputFile, saveInputFile } from './input-files.js'

export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024
const EXTENSIONS = ['json', 'yaml', 'yml']

/** The input file of an upload; the name comes from a stored spec, and anything but a plain file name is refused. */
function uploadName(name: string): string {
  if (path.basename(name) !== name || name.startsWith('.')) throw new LecternError('validation_error', `Invalid upload name "${name}".`)
  return `uploads/${name}`
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

/** Saves `data` as the upload `<slug>.<ext>`; the slug must already be a safe file name (slugifySegment). */
export async function saveUpload(store: Store, slug: string, ext: string, data: Buffer): Promise<string> {
  checkUploadSize(data.length)
  const name = `${slug}.${ext}`
  await saveInputFile(store, uploadName(name), data)
  return name
}

/** The upload's text, or undefined when there is none. */
export async function readUpload(store: Store, name: string): Promise<string | undefined> {
  return (await readInputFile(store, uploadName(name)))?.toString('utf8')
}

/** Removes the slug's files of other extensions, left behind when a re-upload changed the format. */
export async function removeOtherUploads(store: Store, slug: string, keep: string): Promise<void> {
  const stale = EXTENSIONS.map((ext) => `${slug}.${ext}`).filter((name) => name !== keep)
  await Promise.all(stale.map((name) => removeInputFile(store, uploadName(name))))
}

/** Removes an upload; a name that is not a plain file name is left alone rather than followed out of uploads/. */
export async function removeUpload(store: Store, name: string): Promise<void> {
  if (path.basename(name) !== name || name.startsWith('.')) return
  await removeInputFile(store, uploadName(name))
}
