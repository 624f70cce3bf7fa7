/**
 * Single-use tokens that prove a mailbox (migration 0017): email verification and password
 * reset. A token is 32 random bytes shown once (in the mail); the store keeps its SHA-256 and an
 * expiry, and using it deletes it, so a link works once and a leaked database holds no usable link.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Db } from './db.js'

export type TokenPurpose = 'verify' | 'reset'

export interface AccountTokensRepository {
  /** A new token for the user; earlier tokens of the same purpose stop working. */
  issue(userId: number, purpose: TokenPurpose, ttlMs: number, now?: number): string
  /** The user the token was issued to, when it is known, of this purpose and unexpired; it is used up either way. */
  consume(token: string, purpose: TokenPurpose, now?: number): number | undefined
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

export function createAccountTokensRepository(db: Db): AccountTokensRepository {
  const insert = db.prepare('INSERT INTO account_tokens (token_hash, user_pk, purpose, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
  const deleteOfUser = db.prepare('DELETE FROM account_tokens WHERE user_pk = ? AND purpose = ?')
  const deleteExpired = db.prepare('DELETE FROM account_tokens WHERE expires_at <= ?')
  const take = db.prepare<[string], { user_pk: number; purpose: string; expires_at: string }>(
    'DELETE FROM account_tokens WHERE token_hash = ? RETURNING user_pk, purpose, expires_at',
  )
  return {
    issue: db.transaction((userId: number, purpose: TokenPurpose, ttlMs: number, now: number = Date.now()) => {
      deleteExpired.run(new Date(now).toISOString())
      deleteOfUser.run(userId, purpose)
      const token = randomBytes(32).toString('base64url')
      insert.run(sha256(token), userId, purpose, new Date(now).toISOString(), new Date(now + ttlMs).toISOString())
      return token
    }),
    consume(token, purpose, now = Date.now()) {
      const row = take.get(sha256(token))
      if (!row || row.purpose !== purpose || row.expires_at <= new Date(now).toISOString()) return undefined
      return row.user_pk
    },
  }
}
