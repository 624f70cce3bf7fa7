/**
 * SHA256SUMS files in the format `sha256sum -c` reads: `<hex>  <path>` a line, paths relative to
 * the file's own folder, sorted.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'

export const SUMS_FILE = 'SHA256SUMS'

export async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(fs.createReadStream(file), hash)
  return hash.digest('hex')
}

/** Regular files under `dir`, relative and sorted (links are skipped: the release tree has none). */
export function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort()
}

export async function writeSums(dir: string, files: string[]): Promise<string> {
  const lines: string[] = []
  for (const file of [...files].sort()) lines.push(`${await sha256(path.join(dir, file))}  ${file}`)
  const out = path.join(dir, SUMS_FILE)
  fs.writeFileSync(out, `${lines.join('\n')}\n`)
  return out
}
