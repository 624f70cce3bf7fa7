/**
 * Admin users and sessions. Passwords are hashed with scrypt (N=2^15, r=8, p=1, 16-byte salt)
 * and compared in constant time; a wrong email costs the same hash as a wrong password, so the
 * timing does not tell which accounts exist. Sessions are random 32-byte tokens, stored hashed.
 */
import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import { LecternError } from '../errors.js'
import { nowIso } from './db.js'
import type { Sql } from './sql.js'

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }
const KEY_LENGTH = 32
const SESSION_TTL_MS = 12 * 60 * 60 * 1000

export type Role = 'admin' | 'member'

export interface User {
  id: number
  email: string
  role: Role
  /** Whether the user proved the email is theirs (cloud sign-up); users the operator made are. */
  emailVerified: boolean
  createdAt: string
}

interface UserRow {
  pk: number
  email: string
  password_hash: string
  sso_subject: string | null
  role: Role
  email_verified_at: string | null
  created_at: string
}

const toUser = (r: UserRow): User => ({ id: r.pk, email: r.email, role: r.role, emailVerified: r.email_verified_at !== null, createdAt: r.created_at })
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
export function requireStrongPassword(password: string): void {
  if (password.length < 12) throw new LecternError('validation_error', 'A password must have at least 12 characters.')
  if (new Set(password).size < MIN_DISTINCT_CHARACTERS) {
    throw new LecternError('validation_error', `A password must mix at least ${MIN_DISTINCT_CHARACTERS} different characters; a repeated pattern is easy to guess.`)
  }
}

/** Hashed on first need, so unknown emails cost a real comparison too. */
let decoy: Promise<string> | undefined
const decoyHash = () => (decoy ??= hashPassword(randomBytes(16).toString('hex')))

export interface UsersRepository {
  /** A new user; `verified: false` for a cloud sign-up, whose email is yet to be proven. */
  create(input: { email: string; password: string; role?: Role; verified?: boolean }): Promise<User>
  list(): Promise<User[]>
  byEmail(email: string): Promise<User | undefined>
  byPk(pk: number): Promise<User | undefined>
  markVerified(userId: number): Promise<User>
  /** The user when email and password match, else undefined; always takes one scrypt. */
  verify(email: string, password: string): Promise<User | undefined>
  /** A new session token for the user (the cookie value); only its hash is stored. */
  startSession(userId: number, now?: number): Promise<{ token: string; expiresAt: string }>
  /** The user of a live session token. */
  sessionUser(token: string, now?: number): Promise<User | undefined>
  endSession(token: string): Promise<void>
  /**
   * Sets a new password once `currentPassword` proves it is the user (401 not_authenticated
   * otherwise), and ends every session of the user but `keptToken`'s, so a session someone
   * else holds ends with the old password.
   */
  changePassword(userId: number, currentPassword: string, newPassword: string, keptToken: string): Promise<void>
  /** Sets a new password without the old one (a reset link proved the mailbox) and ends every session of the user. */
  resetPassword(userId: number, newPassword: string): Promise<void>
  /**
   * The user an OpenID provider's subject signs in as, with the email, name, role and groups the
   * provider gives now: found by subject; else the user of that email with no subject yet, linked
   * to it when the provider says the email is verified; else created (just in time), with no password. `previousRole` is null for a new user.
   */
  signInSso(identity: SsoIdentity): Promise<{ user: User; previousRole: Role | null }>
  /** The groups the provider named at the user's last sign-in, by name; none for a password user. */
  groupsOf(userId: number): Promise<string[]>
}

export interface SsoIdentity {
  /** `<issuer> <sub>`: the identity's one stable key. */
  subject: string
  email: string
  /** Whether the provider vouches for the email: only then does a sign-in take over an existing user of that email. */
  emailVerified: boolean
  name: string | null
  /** The role to give, from the one the user has (null: a new user). */
  role: (current: Role | null) => Role
  groups: readonly string[]
}

/** The password hash of a user who signs in only through the provider: no password matches it. */
const NO_PASSWORD = 'sso'

export function createUsersRepository(sql: Sql): UsersRepository {
  const byEmail = (email: string) => sql.get<UserRow>('SELECT * FROM users WHERE email = ?', [email])
  const byPk = (pk: number) => sql.get<UserRow>('SELECT * FROM users WHERE pk = ?', [pk])
  const setPasswordHash = (hash: string, userId: number) => sql.run('UPDATE users SET password_hash = ? WHERE pk = ?', [hash, userId])

  return {
    async create({ email, password, role = 'admin', verified = true }) {
      const address = email.trim()
      if (!/^[^\s@]+@[^\s@]+$/.test(address)) throw new LecternError('validation_error', `"${email}" is not an email address.`)
      requireStrongPassword(password)
      if (await byEmail(address)) throw new LecternError('validation_error', `A user ${address} already exists.`)
      const now = nowIso()
      const hash = await hashPassword(password)
      const row = await sql.get<UserRow>('INSERT INTO users (email, password_hash, role, email_verified_at, created_at) VALUES (?, ?, ?, ?, ?) RETURNING *', [
        address,
        hash,
        role,
        verified ? now : null,
        now,
      ])
      return toUser(row!)
    },
    list: async () => (await sql.all<UserRow>('SELECT * FROM users ORDER BY pk')).map(toUser),
    async byEmail(email) {
      const row = await byEmail(email.trim())
      return row && toUser(row)
    },
    async byPk(pk) {
      const row = await byPk(pk)
      return row && toUser(row)
    },
    async markVerified(userId) {
      await sql.run('UPDATE users SET email_verified_at = ? WHERE pk = ? AND email_verified_at IS NULL', [nowIso(), userId])
      const row = await byPk(userId)
      if (!row) throw new LecternError('user_not_found', `No user with ID ${userId}.`)
      return toUser(row)
    },
    async verify(email, password) {
      const row = await byEmail(email.trim())
      // A user with no password takes the same scrypt as an unknown one: the time tells nothing.
      const stored = row && row.password_hash !== NO_PASSWORD ? row.password_hash : await decoyHash()
      const matches = await checkPassword(password, stored)
      return row && row.password_hash !== NO_PASSWORD && matches ? toUser(row) : undefined
    },
    async startSession(userId, now = Date.now()) {
      await sql.run('DELETE FROM sessions WHERE expires_at <= ?', [new Date(now).toISOString()])
      const token = randomBytes(32).toString('base64url')
      const expiresAt = new Date(now + SESSION_TTL_MS).toISOString()
      await sql.run('INSERT INTO sessions (token_hash, user_pk, created_at, expires_at) VALUES (?, ?, ?, ?)', [sha256(token), userId, new Date(now).toISOString(), expiresAt])
      return { token, expiresAt }
    },
    async sessionUser(token, now = Date.now()) {
      const row = await sql.get<UserRow>('SELECT u.* FROM sessions s JOIN users u ON u.pk = s.user_pk WHERE s.token_hash = ? AND s.expires_at > ?', [
        sha256(token),
        new Date(now).toISOString(),
      ])
      return row && toUser(row)
    },
    async endSession(token) {
      await sql.run('DELETE FROM sessions WHERE token_hash = ?', [sha256(token)])
    },
    async changePassword(userId, currentPassword, newPassword, keptToken) {
      const row = await byPk(userId)
      if (!row || !(await checkPassword(currentPassword, row.password_hash))) {
        throw new LecternError('not_authenticated', 'The current password is wrong; the password was not changed.')
      }
      requireStrongPassword(newPassword)
      const hash = await hashPassword(newPassword)
      await sql.transaction(async () => {
        await setPasswordHash(hash, userId)
        await sql.run('DELETE FROM sessions WHERE user_pk = ? AND token_hash != ?', [userId, sha256(keptToken)])
      })
    },
    async resetPassword(userId, newPassword) {
      requireStrongPassword(newPassword)
      const hash = await hashPassword(newPassword)
      await sql.transaction(async () => {
        await setPasswordHash(hash, userId)
        await sql.run('DELETE FROM sessions WHERE user_pk = ?', [userId])
      })
    },
    signInSso: (identity) =>
      sql.transaction(async () => {
        const email = identity.email.trim()
        if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new LecternError('not_authenticated', `The provider's email claim "${email}" is not an email address.`)
        let row = await sql.get<UserRow>('SELECT * FROM users WHERE sso_subject = ?', [identity.subject])
        const byAddress = await byEmail(email)
        if (!row && byAddress) {
          if (byAddress.sso_subject !== null) throw new LecternError('not_authenticated', `${email} signs in as another identity of the provider; an admin can remove that user first.`)
          // Linking hands the provider's user every right of the existing one: only for an email it vouches for.
          if (!identity.emailVerified) {
            throw new LecternError('not_authenticated', `A user ${email} already exists, and the identity provider does not say the email is verified (email_verified), so the sign-in cannot take that user over; have the provider send email_verified, or remove the existing user.`)
          }
          row = byAddress
        } else if (row && byAddress && byAddress.pk !== row.pk) {
          throw new LecternError('not_authenticated', `The provider now names this user ${email}, which another user of Lectern has.`)
        }
        const previousRole = row?.role ?? null
        const role = identity.role(previousRole)
        if (row) {
          await sql.run('UPDATE users SET sso_subject = ?, email = ?, name = ?, email_verified_at = COALESCE(email_verified_at, ?) WHERE pk = ?', [
            identity.subject,
            email,
            identity.name,
            nowIso(),
            row.pk,
          ])
          // Apart: a role change moves the catalogue version (migration 0021), which a sign-in that keeps the role must not.
          if (row.role !== role) await sql.run('UPDATE users SET role = ? WHERE pk = ?', [role, row.pk])
        } else {
          const now = nowIso()
          row = await sql.get<UserRow>('INSERT INTO users (email, password_hash, role, email_verified_at, created_at, sso_subject, name) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *', [
            email,
            NO_PASSWORD,
            role,
            now,
            now,
            identity.subject,
            identity.name,
          ])
        }
        const pk = row!.pk
        // Rewritten only when they changed: a change moves the catalogue version (migration 0032).
        const groups = [...new Set(identity.groups)].sort()
        const stored = (await sql.all<{ name: string }>('SELECT name FROM user_groups WHERE user_pk = ?', [pk])).map((r) => r.name).sort()
        if (groups.join('\n') !== stored.join('\n')) {
          await sql.run('DELETE FROM user_groups WHERE user_pk = ?', [pk])
          for (const name of groups) await sql.run('INSERT INTO user_groups (user_pk, name) VALUES (?, ?)', [pk, name])
        }
        return { user: toUser((await byPk(pk))!), previousRole }
      }, 'write'),
    groupsOf: async (userId) => (await sql.all<{ name: string }>('SELECT name FROM user_groups WHERE user_pk = ? ORDER BY name', [userId])).map((r) => r.name),
  }
}
