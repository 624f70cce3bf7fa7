/**
 * Files jobs read, kept in the database of a PostgreSQL install (migration 0028;
 * src/sources/input-files.ts says which files and why). A file is its chunks in order, each up to
 * CHUNK_BYTES, so neither a write nor a read holds a whole file in one statement.
 *
 * Guarantees: a reader sees a whole file or none: `put` stores the chunks under a partial name and
 * renames them in one short transaction (the write lock is not held while a large file travels);
 * `read` and `copyTo` read every chunk in one snapshot, so a file replaced meanwhile is read as it
 * was. A put cut short leaves only partial rows, which `removePartial` sweeps.
 */
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import { nowIso } from './db.js'
import type { Sql } from './sql.js'

export const CHUNK_BYTES = 1024 * 1024

/** Where a put's chunks wait until the whole file is stored. */
const PARTIAL = 'partial/'

export interface InputFileEntry {
  name: string
  bytes: number
  createdAt: string
}

export interface InputFilesRepository {
  /** Stores `name` from `data` (buffers of any size), replacing a file of that name once all of it is stored; returns its size. */
  put(name: string, data: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<number>
  /** The whole file, or undefined when there is none. */
  read(name: string): Promise<Buffer | undefined>
  /** Writes the file to `file` (created or truncated) chunk by chunk; false, and nothing written, when there is none. */
  copyTo(name: string, file: string): Promise<boolean>
  remove(name: string): Promise<boolean>
  /** The files whose names start with `prefix` (partial ones left out). */
  list(prefix: string): Promise<InputFileEntry[]>
  /** Removes the chunks of puts that began before `before` (an ISO time) and never finished; returns how many chunks went. */
  removePartial(before: string): Promise<number>
}

/** `data` cut into chunks of CHUNK_BYTES (the last one shorter). */
async function* chunksOf(data: AsyncIterable<Buffer> | Iterable<Buffer>): AsyncGenerator<Buffer> {
  let pending: Buffer[] = []
  let size = 0
  for await (const piece of data) {
    let rest = piece
    while (size + rest.length >= CHUNK_BYTES) {
      const take = CHUNK_BYTES - size
      yield Buffer.concat([...pending, rest.subarray(0, take)])
      rest = rest.subarray(take)
      pending = []
      size = 0
    }
    if (rest.length > 0) {
      pending.push(rest)
      size += rest.length
    }
  }
  if (size > 0) yield Buffer.concat(pending)
}

export function createInputFilesRepository(sql: Sql): InputFilesRepository {
  const chunk = (name: string, n: number) => sql.get<{ data: Buffer }>('SELECT data FROM input_files WHERE name = ? AND chunk = ?', [name, n])
  const removeNamed = async (name: string) => (await sql.run('DELETE FROM input_files WHERE name = ?', [name])).changes > 0

  return {
    async put(name, data) {
      const partial = `${PARTIAL}${randomUUID()}`
      const createdAt = nowIso()
      let n = 0
      let bytes = 0
      try {
        // Outside a transaction: each chunk commits on its own, holding up no other writer.
        for await (const piece of chunksOf(data)) {
          await sql.run('INSERT INTO input_files (name, chunk, data, created_at) VALUES (?, ?, ?, ?)', [partial, n++, piece, createdAt])
          bytes += piece.length
        }
        await sql.transaction(async () => {
          await removeNamed(name)
          await sql.run('UPDATE input_files SET name = ? WHERE name = ?', [name, partial])
          // An empty file is one empty chunk, so that it exists.
          if (n === 0) await sql.run('INSERT INTO input_files (name, chunk, data, created_at) VALUES (?, 0, ?, ?)', [name, Buffer.alloc(0), createdAt])
        })
      } catch (err) {
        await removeNamed(partial).catch(() => {})
        throw err
      }
      return bytes
    },
    read: (name) =>
      sql.transaction(async () => {
        const chunks: Buffer[] = []
        for (let n = 0, row = await chunk(name, 0); row; row = await chunk(name, ++n)) chunks.push(row.data)
        return chunks.length === 0 ? undefined : Buffer.concat(chunks)
      }, 'read'),
    copyTo: (name, file) =>
      sql.transaction(async () => {
        let row = await chunk(name, 0)
        if (!row) return false
        const fd = fs.openSync(file, 'w', 0o600)
        try {
          for (let n = 0; row; row = await chunk(name, ++n)) fs.writeSync(fd, row.data)
        } finally {
          fs.closeSync(fd)
        }
        return true
      }, 'read'),
    remove: removeNamed,
    list: async (prefix) =>
      (
        await sql.all<{ name: string; bytes: number; created_at: string }>(
          `SELECT name, SUM(LENGTH(data)) AS bytes, MIN(created_at) AS created_at FROM input_files
           WHERE SUBSTR(name, 1, ?) = ? GROUP BY name ORDER BY name`,
          [prefix.length, prefix],
        )
      )
        .filter((row) => !row.name.startsWith(PARTIAL))
        .map((row) => ({ name: row.name, bytes: Number(row.bytes), createdAt: row.created_at })),
    removePartial: async (before) =>
      (await sql.run('DELETE FROM input_files WHERE SUBSTR(name, 1, ?) = ? AND created_at < ?', [PARTIAL.length, PARTIAL, before])).changes,
  }
}
