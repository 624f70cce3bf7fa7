/**
 * The data directory's `secret.key`: 32 random bytes, mode 0600, created once with O_EXCL so two
 * processes starting together can never write two different keys.
 */
import { randomBytes, createHash } from 'node:crypto'
import fs from 'node:fs'
import { LecternError } from '../errors.js'

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

/**
 * The key of a PostgreSQL install: every replica seals and opens the same secrets, so the key
 * cannot live in one replica's data directory. It comes from LECTERN_SECRET_KEY (64 hex
 * characters: `openssl rand -hex 32`), the same on every replica; it is never echoed back.
 */
export function secretKeyFromEnv(env: NodeJS.ProcessEnv): Buffer {
  const text = env.LECTERN_SECRET_KEY?.trim() ?? ''
  if (text === '') {
    throw new LecternError('validation_error', 'LECTERN_SECRET_KEY is required with DATABASE_URL: give every replica the same 64 hex characters (make them once with `openssl rand -hex 32` and keep them in your secret store).')
  }
  if (!/^[0-9a-f]+$/i.test(text) || text.length !== KEY_BYTES * 2) {
    throw new LecternError('validation_error', `LECTERN_SECRET_KEY must be ${KEY_BYTES * 2} hex characters (${KEY_BYTES} bytes, as \`openssl rand -hex 32\` prints); the one given is ${text.length} characters${/^[0-9a-f]*$/i.test(text) ? '' : ' and not all hex'}.`)
  }
  return Buffer.from(text, 'hex')
}

/** A short, non-reversible fingerprint for manifests and logs. */
export function keyFingerprint(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16)
}
