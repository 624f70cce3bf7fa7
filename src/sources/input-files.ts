/**
 * The files jobs read: an uploaded OpenAPI spec (`uploads/`, read again at every refresh) and a
 * library staged by an import (`imports/`, read once by its job). A file is named by its path in
 * the data directory (`uploads/petstore.yaml`), wherever it is kept:
 * - on SQLite, in the data directory, where every runner of the install reads it and backups copy
 *   the uploads;
 * - on PostgreSQL, in the database (store/input-files.ts): each replica has a data directory of its
 *   own and a job runs on whichever replica claims it, so the file must be where all of them read
 *   it (and where `pg_dump` copies it).
 */
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { LecternError } from '../errors.js'
import type { Store } from '../store/index.js'

/** The file's path in the data directory; a name that leads out of it is refused. */
export function inputFilePath(store: Store, name: string): string {
  const file = path.resolve(store.paths.root, name)
  if (!file.startsWith(store.paths.root + path.sep)) throw new LecternError('internal_error', `The input file ${JSON.stringify(name)} is outside the data directory.`)
  return file
}

/** The name of a file in the data directory, as input files are named. */
export const inputFileName = (store: Store, file: string): string => path.relative(store.paths.root, file).split(path.sep).join('/')

const inDatabase = (store: Store) => store.database.kind === 'postgres'

/** Saves `data` as `name`, replacing a file of that name whole: a reader never sees half of it. */
export async function saveInputFile(store: Store, name: string, data: Buffer): Promise<void> {
  const file = inputFilePath(store, name)
  if (inDatabase(store)) {
    await store.inputFiles.put(name, [data])
    return
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`)
  try {
    await writeFile(temp, data, { mode: 0o600 })
    await rename(temp, file)
  } catch (err) {
    await rm(temp, { force: true })
    throw err
  }
}

/**
 * Makes the file written at `name` in this data directory an input file: on PostgreSQL it moves
 * into the database, read as it streams; on SQLite it already is one.
 */
export async function keepInputFile(store: Store, name: string): Promise<void> {
  if (!inDatabase(store)) return
  const file = inputFilePath(store, name)
  await store.inputFiles.put(name, fs.createReadStream(file) as AsyncIterable<Buffer>)
  await rm(file, { force: true })
}

/** The whole file, or undefined when there is none. */
export async function readInputFile(store: Store, name: string): Promise<Buffer | undefined> {
  if (inDatabase(store)) return await store.inputFiles.read(name)
  try {
    return await readFile(inputFilePath(store, name))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

/**
 * Runs `fn` with the file as a file in this data directory, for a reader that streams it; `fn`
 * gets undefined when there is none. On PostgreSQL the file is copied beside where it would be
 * and removed when `fn` ends.
 */
export async function withInputFile<T>(store: Store, name: string, fn: (file: string | undefined) => Promise<T>): Promise<T> {
  const file = inputFilePath(store, name)
  if (!inDatabase(store)) return await fn(fs.existsSync(file) ? file : undefined)
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  const copy = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.copy`)
  try {
    return await fn((await store.inputFiles.copyTo(name, copy)) ? copy : undefined)
  } finally {
    await rm(copy, { force: true })
  }
}

export async function removeInputFile(store: Store, name: string): Promise<void> {
  const file = inputFilePath(store, name)
  if (inDatabase(store)) await store.inputFiles.remove(name)
  else await rm(file, { force: true })
}
