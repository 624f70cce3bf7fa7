/**
 * Admin users and sessions. Passwords are hashed with scrypt (N=2^15, r=8, p=1, 16-byte salt)
 * and compared in constant time; a wrong email costs the same hash as a wrong password, so the
 * timing does not tell which accounts exist. Sessions are random 32-byte tokens, stored hashed.
 */
import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import { LecternError } from '../errors.js'
import type { Db } from './db.js'
import { nowIso } from './db.js'

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }
const KEY_LENGTH = 32
const SESSION_TTL_MS = 12 * 60 * 60 * 1000

export type Role = 'admin' | 'member'

export interface User {
  id: number
  email: string
  role: Role
  createdAt: string
}

interface UserRow {
  pk: number
  email: string
  password_hash: string
  role: Role
  created_at: string
}

const toUser = (r: UserRow): User => ({ id: r.pk, email: r.email, role: r.role, createdAt: r.created_at })
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scrypt(password, salt, KEY_LENGTH, SCRYPT)
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`
}

async function checkPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$')
  if (scheme !== 'scrypt') return false
  const expected = Buffer.from(key, 'base64')
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: SCRYPT.maxmem })
  return timingSafeEqual(actual, expected)
}

/** Fewer different characters than this is a repeated pattern (`aaaaaaaaaaaa`, `abababababab`), however long. */
const MIN_DISTINCT_CHARACTERS = 5

/**
 * The one password rule, for every way a password is set (`lectern admin create`, first-run
 * setup, a change of one's own): 12 characters at least, since length is what makes a password
 * hard to guess, and not a character or two repeated, which makes length worthless.
 */
function requireStrongPassword(password: string): void {
  if (password.length < 12) throw new LecternError('validation_error', 'A password must have at least 12 characters.')
  if (new Set(password).size < MIN_DISTINCT_CHARACTERS) {
    throw new LecternError('validation_error', `A password must mix at least ${MIN_DISTINCT_CHARACTERS} different characters; a repeated pattern is easy to guess.`)
  }
}

/** Hashed on first need, so unknown emails cost a real comparison too. */
let decoy: Promise<string> | undefined
const decoyHash = () => (decoy ??= hashPassword(randomBytes(16).toString('hex')))

export interface UsersRepository {
  create(input: { email: string; password: string; role?: Role }): Promise<User>
  list(): User[]
  byEmail(email: string): User | undefined
  /** The user when email and password match, else undefined; always takes one scrypt. */
  verify(email: string, password: string): Promise<User | undefined>
  /** A new session token for the user (the cookie value); only its hash is stored. */
  startSession(userId: number, now?: number): { token: string; expiresAt: string }
  /** The user of a live session token. */
  sessionUser(token: string, now?: number): User | undefined
  endSession(token: string): void
  /**
   * Sets a new password once `currentPassword` proves it is the user (401 not_authenticated
   * otherwise), and ends every session of the user but `keptToken`'s, so a session someone
   * else holds ends with the old password.
   */
  changePassword(userId: number, currentPassword: string, newPassword: string, keptToken: string): Promise<void>
}

export function createUsersRepository(db: Db): UsersRepository {
  const byEmail = db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?')
  const byPk = db.prepare<[number], UserRow>('SELECT * FROM users WHERE pk = ?')
  const insert = db.prepare('INSERT INTO users (email, password_hash, role, created_at) VALUES (?, ?, ?, ?)')
  const insertSession = db.prepare('INSERT INTO sessions (token_hash, user_pk, created_at, expires_at) VALUES (?, ?, ?, ?)')
  const session = db.prepare<[string, string], UserRow>(
    'SELECT u.* FROM sessions s JOIN users u ON u.pk = s.user_pk WHERE s.token_hash = ? AND s.expires_at > ?',
  )
  const deleteSession = db.prepare('DELETE FROM sessions WHERE token_hash = ?')
  const deleteExpired = db.prepare('DELETE FROM sessions WHERE expires_at <= ?')
  const setPasswordHash = db.prepare('UPDATE users SET password_hash = ? WHERE pk = ?')
  const deleteOtherSessions = db.prepare('DELETE FROM sessions WHERE user_pk = ? AND token_hash != ?')

  return {
    async create({ email, password, role = 'admin' }) {
      const address = email.trim()
      if (!/^[^\s@]+@[^\s@]+$/.test(address)) throw new LecternError('validation_error', `"${email}" is not an email address.`)
      requireStrongPassword(password)
      if (byEmail.get(address)) throw new LecternError('validation_error', `A user ${address} already exists.`)
      const { lastInsertRowid } = insert.run(address, await hashPassword(password), role, nowIso())
      return toUser(byPk.get(Number(lastInsertRowid))!)
    },
    list: () => (db.prepare('SELECT * FROM users ORDER BY pk').all() as UserRow[]).map(toUser),
    byEmail: (email) => {
      const row = byEmail.get(email.trim())
      return row && toUser(row)
    },
    async verify(email, password) {
      const row = byEmail.get(email.trim())
      const matches = await checkPassword(password, row?.password_hash ?? (await decoyHash()))
      return row && matches ? toUser(row) : undefined
    },
    startSession(userId, now = Date.now()) {
      deleteExpired.run(new Date(now).toISOString())
      const token = randomBytes(32).toString('base64url')
      const expiresAt = new Date(now + SESSION_TTL_MS).toISOString()
      insertSession.run(sha256(token), userId, new Date(now).toISOString(), expiresAt)
      return { token, expiresAt }
    },
    sessionUser(token, now = Date.now()) {
      const row = session.get(sha256(token), new Date(now).toISOString())
      return row && toUser(row)
    },
    endSession: (token) => void deleteSession.run(sha256(token)),
    async changePassword(userId, currentPassword, newPassword, keptToken) {
      const row = byPk.get(userId)
      if (!row || !(await checkPassword(currentPassword, row.password_hash))) {
        throw new LecternError('not_authenticated', 'The current password is wrong; the password was not changed.')
      }
      requireStrongPassword(newPassword)
      const hash = await hashPassword(newPassword)
      db.transaction(() => {
        setPasswordHash.run(hash, userId)
        deleteOtherSessions.run(userId, sha256(keptToken))
      })()
    },
  }
}
