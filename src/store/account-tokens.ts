/**
 * Single-use tokens that prove a mailbox (migration 0017): email verification and password
 * reset. A token is 32 random bytes shown once (in the mail); the store keeps its SHA-256 and an
 * expiry, and using it deletes it, so a link works once and a leaked database holds no usable link.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Sql } from './sql.js'

export type TokenPurpose = 'verify' | 'reset'

export interface AccountTokensRepository {
  /** A new token for the user; earlier tokens of the same purpose stop working. */
  issue(userId: number, purpose: TokenPurpose, ttlMs: number, now?: number): Promise<string>
  /** The user the token was issued to, when it is known, of this purpose and unexpired; it is used up either way. */
  consume(token: string, purpose: TokenPurpose, now?: number): Promise<number | undefined>
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

export function createAccountTokensRepository(sql: Sql): AccountTokensRepository {
  return {
    issue: (userId, purpose, ttlMs, now = Date.now()) =>
      sql.transaction(async () => {
        await sql.run('DELETE FROM account_tokens WHERE expires_at <= ?', [new Date(now).toISOString()])
        await sql.run('DELETE FROM account_tokens WHERE user_pk = ? AND purpose = ?', [userId, purpose])
        const token = randomBytes(32).toString('base64url')
        await sql.run('INSERT INTO account_tokens (token_hash, user_pk, purpose, created_at, expires_at) VALUES (?, ?, ?, ?, ?)', [
          sha256(token),
          userId,
          purpose,
          new Date(now).toISOString(),
          new Date(now + ttlMs).toISOString(),
        ])
        return token
      }),
    async consume(token, purpose, now = Date.now()) {
      const row = await sql.get<{ user_pk: number; purpose: string; expires_at: string }>('DELETE FROM account_tokens WHERE token_hash = ? RETURNING user_pk, purpose, expires_at', [sha256(token)])
      if (!row || row.purpose !== purpose || row.expires_at <= new Date(now).toISOString()) return undefined
      return row.user_pk
    },
  }
}
