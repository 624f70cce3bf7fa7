/**
 * The data directory's `secret.key`: 32 random bytes, mode 0600, created once with O_EXCL so two
 * processes starting together can never write two different keys.
 */
import { randomBytes, createHash } from 'node:crypto'
import fs from 'node:fs'

const KEY_BYTES = 32

export function loadOrCreateSecretKey(keyPath: string): Buffer {
  try {
    fs.writeFileSync(keyPath, randomBytes(KEY_BYTES), { flag: 'wx', mode: 0o600 })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  const key = fs.readFileSync(keyPath)
  if (key.length !== KEY_BYTES) {
    throw new Error(`${keyPath} holds ${key.length} bytes, expected ${KEY_BYTES}; restore it from a backup`)
  }
  return key
}

/** A short, non-reversible fingerprint for manifests and logs. */
export function keyFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16)
}
