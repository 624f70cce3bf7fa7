/**
 * First run. A fresh install has no admin, and never a default password: `lectern serve` makes
 * a one-time setup token, and whoever presents it to the dashboard's setup page (POST /api/setup)
 * creates the first admin. The token is written to `<data-dir>/setup-token` (mode 0600) and printed
 * on the terminal, never logged: reading it proves access to the host, as Jenkins' initial
 * password does. Only its sha256 is stored, so every serving process checks it alike.
 *
 * Guarantee: at most one admin is created through setup. Presenting the token claims it in one
 * transaction (the hash is erased), so two setups racing across processes cannot both pass; a
 * claim whose admin is then refused (a weak password) puts the token back.
 *
 * One token per install: replicas on PostgreSQL share the database but not their data
 * directories, so a replica that starts while another live replica's token waits makes none, and
 * says on which host and in which file the token is (tokenElsewhere); every replica checks the
 * token, whichever made it. A token whose maker's host has no live replica any more (its pod is
 * gone) is replaced by the next start.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import { LecternError } from '../errors.js'
import type { DataPaths } from './paths.js'
import { liveReplicas } from './replica.js'
import type { Store } from '../store/index.js'
import { SETTING_KEYS } from '../store/settings.js'
import type { User } from '../store/users.js'

const hashOf = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest()

/** Whether the install still needs its first admin. */
export async function needsSetup(store: Store): Promise<boolean> {
  return !(await store.users.list()).some((user) => user.role === 'admin')
}

/**
 * At start: a new setup token when no admin exists (returned, for the terminal), else none, and
 * any token an earlier start left is erased. A start makes a new token, so a token seen in an old
 * terminal or file stops working.
 */
export async function prepareSetup(store: Store, paths: DataPaths): Promise<{ token: string; file: string } | undefined> {
  if (!await needsSetup(store)) {
    await store.settings.set(SETTING_KEYS.setupTokenHash, null)
    await store.settings.remove(SETTING_KEYS.setupTokenWhere)
    fs.rmSync(paths.setupToken, { force: true })
    return undefined
  }
  const token = randomBytes(24).toString('base64url')
  const temp = `${paths.setupToken}.tmp`
  fs.rmSync(temp, { force: true })
  fs.writeFileSync(temp, `${token}\n`, { mode: 0o600, flag: 'wx' })
  fs.renameSync(temp, paths.setupToken)
  await store.settings.set(SETTING_KEYS.setupTokenHash, hashOf(token).toString('hex'))
  await store.settings.set(SETTING_KEYS.setupTokenWhere, { host: os.hostname(), file: paths.setupToken } satisfies TokenWhere)
  return { token, file: paths.setupToken }
}

interface TokenWhere {
  host: string
  file: string
}

/**
 * On PostgreSQL, where the waiting setup token is when another replica made it, on a host where
 * a replica is still up; undefined when this start should make one (prepareSetup).
 */
export async function tokenElsewhere(store: Store, paths: DataPaths): Promise<TokenWhere | undefined> {
  if (store.database.kind !== 'postgres' || !(await needsSetup(store))) return undefined
  const where = await store.settings.get<TokenWhere>(SETTING_KEYS.setupTokenWhere)
  if (!where || !(await store.settings.get<string | null>(SETTING_KEYS.setupTokenHash))) return undefined
  if (where.host === os.hostname() && where.file === paths.setupToken) return undefined
  return (await liveReplicas(store)).some((replica) => replica.host === where.host) ? where : undefined
}

/** Creates the first admin for the holder of the setup token. */
export async function completeSetup(store: Store, paths: DataPaths, input: { token: string; email: string; password: string }): Promise<User> {
  const stored = await claimToken(store, input.token)
  try {
    const user = await store.users.create({ email: input.email, password: input.password, role: 'admin' })
    fs.rmSync(paths.setupToken, { force: true })
    return user
  } catch (err) {
    await store.settings.set(SETTING_KEYS.setupTokenHash, stored)
    throw err
  }
}

/** Checks the token and erases it in one transaction; returns the stored hash, to put back on failure. */
async function claimToken(store: Store, token: string): Promise<string> {
  return await store.transaction(async () => {
    if (!await needsSetup(store)) throw new LecternError('forbidden', 'This install already has an admin: sign in instead.')
    const stored = await store.settings.get<string | null>(SETTING_KEYS.setupTokenHash)
    const given = hashOf(token)
    if (!stored || !timingSafeEqual(Buffer.from(stored, 'hex'), given)) {
      throw new LecternError('not_authenticated', 'The setup token is wrong. It is in the file setup-token of the data directory, and printed by `lectern serve` at start.')
    }
    await store.settings.set(SETTING_KEYS.setupTokenHash, null)
    return stored
  })
}
