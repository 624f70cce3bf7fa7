/**
 * Personal API keys: `lct_` + 40 base62 characters. The key is shown once at creation; the store
 * keeps only its SHA-256 (keys are high-entropy random strings, so a slow password hash would buy
 * nothing) and finds the row by the key's first 8 random characters, then compares hashes with
 * timingSafeEqual so no comparison leaks how much of a guess was right.
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto'
import { LecternError } from '../errors.js'
import { nowIso } from './db.js'
import type { Sql } from './sql.js'
import { VersionCache } from './version-cache.js'

export const KEY_PREFIX = 'lct_'
const KEY_BODY_LENGTH = 40
const LOOKUP_LENGTH = 8
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{32,64}$`)

export interface ApiKeyInfo {
  id: number
  name: string
  /** The first characters of the key, enough to recognise it in a list, useless to an attacker. */
  preview: string
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
  /** The user the key belongs to (cloud mode; keys made by `lectern keys create` alone have none). */
  userId: number | null
  /** The teamspace the key works in: its plan, policies and private libraries (cloud mode). */
  teamId: number | null
}

/** Whose key it is: a user within a teamspace (cloud mode, and a signed-in user's own keys). */
export interface KeyOwner {
  userId: number
  teamId: number | null
}

export interface CreatedKey extends ApiKeyInfo {
  /** The full key; shown once and never stored. */
  key: string
}

export interface KeysRepository {
  create(name: string, owner?: KeyOwner): Promise<CreatedKey>
  /** Every key, or those of one teamspace and/or one user. */
  list(filter?: { teamId?: number; userId?: number }): Promise<ApiKeyInfo[]>
  revoke(id: number): Promise<ApiKeyInfo>
  /**
   * The key's row when the key is well formed, known and not revoked; otherwise undefined. Given
   * the catalogue version the request read, a key verified at that version is not read again: a
   * key revoked, deleted or given another owner moves it (migration 0021).
   */
  verify(key: string, catalogVersion?: number): Promise<ApiKeyInfo | undefined>
}

interface KeyRow {
  pk: number
  name: string
  lookup: string
  hash: string
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
  user_pk: number | null
  team_pk: number | null
}

const sha256 = (text: string) => createHash('sha256').update(text).digest()

export const isWellFormedKey = (key: string): boolean => KEY_SHAPE.test(key)

function randomBase62(length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += BASE62[randomInt(BASE62.length)]
  return out
}

function toInfo(row: KeyRow): ApiKeyInfo {
  return {
    id: row.pk,
    name: row.name,
    preview: `${KEY_PREFIX}${row.lookup}...`,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    userId: row.user_pk,
    teamId: row.team_pk,
  }
}

export function createKeysRepository(sql: Sql): KeysRepository {
  const byPk = (pk: number) => sql.get<KeyRow>('SELECT * FROM api_keys WHERE pk = ?', [pk])
  const byLookup = (lookup: string) => sql.get<KeyRow>('SELECT * FROM api_keys WHERE lookup = ?', [lookup])
  // Writing last_used_at on every request would turn each read into a write; once a minute is plenty.
  const lastTouched = new Map<number, number>()
  const live = new VersionCache<string, KeyRow>()

  return {
    async create(name, owner) {
      const trimmed = name.trim()
      if (trimmed === '' || trimmed.length > 100) {
        throw new LecternError('validation_error', 'A key name must be 1 to 100 characters.')
      }
      for (;;) {
        const body = randomBase62(KEY_BODY_LENGTH)
        const key = `${KEY_PREFIX}${body}`
        const lookup = body.slice(0, LOOKUP_LENGTH)
        if (await byLookup(lookup)) continue
        const row = await sql.get<KeyRow>('INSERT INTO api_keys (name, lookup, hash, created_at, user_pk, team_pk) VALUES (?, ?, ?, ?, ?, ?) RETURNING *', [
          trimmed,
          lookup,
          sha256(key).toString('hex'),
          nowIso(),
          owner?.userId ?? null,
          owner?.teamId ?? null,
        ])
        return { ...toInfo(row!), key }
      }
    },
    async list(filter = {}) {
      const conditions = (
        [
          ['team_pk = ?', filter.teamId],
          ['user_pk = ?', filter.userId],
        ] as const
      ).filter(([, value]) => value !== undefined)
      const where = conditions.length > 0 ? `WHERE ${conditions.map(([condition]) => condition).join(' AND ')}` : ''
      const rows = await sql.all<KeyRow>(`SELECT * FROM api_keys ${where} ORDER BY pk`, conditions.map(([, value]) => value!))
      return rows.map(toInfo)
    },
    async revoke(id) {
      if (!(await byPk(id))) throw new LecternError('key_not_found', `No API key with ID ${id}.`)
      await sql.run('UPDATE api_keys SET revoked_at = ? WHERE pk = ? AND revoked_at IS NULL', [nowIso(), id])
      return toInfo((await byPk(id))!)
    },
    async verify(key, catalogVersion) {
      if (!isWellFormedKey(key)) return undefined
      const lookup = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + LOOKUP_LENGTH)
      const row = await live.get(lookup, catalogVersion, async () => {
        const found = await byLookup(lookup)
        return found && !found.revoked_at ? found : undefined
      })
      if (!row) return undefined
      if (!timingSafeEqual(sha256(key), Buffer.from(row.hash, 'hex'))) return undefined
      const now = Date.now()
      if (now - (lastTouched.get(row.pk) ?? 0) > 60_000) {
        lastTouched.set(row.pk, now)
        // A best-effort stamp, not awaited: a full disk (or a long write lock) must not fail or
        // slow the request it rides on; the next use after the minute tries again.
        sql.run('UPDATE api_keys SET last_used_at = ? WHERE pk = ?', [new Date(now).toISOString(), row.pk]).catch(() => undefined)
      }
      return toInfo(row)
    },
  }
}
