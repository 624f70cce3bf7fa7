/**
 * AES-256-GCM for secrets at rest (git tokens of queued jobs, connection tokens, S3 secrets).
 * Format: `v1.<iv>.<tag>.<ciphertext>`, base64url parts; a tampered value fails to decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { keyFingerprint } from './key.js'

export interface SecretBox {
  seal(plain: string): string
  open(sealed: string): string
  /** The key's fingerprint (key.ts), which a backup's manifest names. */
  readonly keyFingerprint: string
}

export function createSecretBox(key: Buffer): SecretBox {
  return {
    keyFingerprint: keyFingerprint(key),
    seal(plain) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
      return ['v1', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.')
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.')
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed secret')
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
    },
  }
}
