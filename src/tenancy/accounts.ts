/**
 * Self-service accounts of the cloud: sign-up, email verification, password reset. Answers never
 * tell whether an address has an account: a sign-up for a known address answers like a new one
 * (and mails that address a reset link instead), a reset request always answers the same. A
 * user may sign in before verifying; what needs a proven address (creating keys and teamspaces,
 * inviting) asks `requireVerified`.
 */
import { LecternError } from '../errors.js'
import type { Mailer } from '../mail/index.js'
import { alreadyRegisteredMail, resetMail, verifyMail } from '../mail/messages.js'
import type { Store } from '../store/index.js'
import { requireStrongPassword, type User } from '../store/users.js'
import { acceptPendingInvitations } from './invitations.js'

export const VERIFY_TTL_MS = 24 * 60 * 60 * 1000
export const RESET_TTL_MS = 60 * 60 * 1000

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

const badLink = () => new LecternError('validation_error', 'This link is not valid: it was used already, has expired, or was replaced by a newer one. Ask for a new one.')

export function requireVerified(user: User): void {
  if (!user.emailVerified) {
    throw new LecternError('forbidden', `Confirm your email first: open the link we sent to ${user.email} (POST /api/auth/verify-resend sends a new one).`)
  }
}

export async function signUp(store: Store, mailer: Mailer, input: { email: string; password: string }): Promise<void> {
  const email = input.email.trim()
  if (!EMAIL.test(email) || email.length > 320) throw new LecternError('validation_error', `"${input.email}" is not an email address.`)
  requireStrongPassword(input.password)
  const existing = await store.users.byEmail(email)
  if (existing) {
    // One scrypt, as creating a user costs: the answer's timing does not tell the address is known.
    await store.users.verify(email, input.password)
    mailer.post(alreadyRegisteredMail(existing.email, mailer.link('reset', await store.accountTokens.issue(existing.id, 'reset', RESET_TTL_MS))))
    return
  }
  const user = await store.users.create({ email, password: input.password, role: 'member', verified: false })
  await store.teams.personalTeam(user.id)
  await sendVerification(store, mailer, user)
}

export async function sendVerification(store: Store, mailer: Mailer, user: User): Promise<void> {
  if (user.emailVerified) throw new LecternError('validation_error', `${user.email} is confirmed already.`)
  mailer.post(verifyMail(user.email, mailer.link('verify', await store.accountTokens.issue(user.id, 'verify', VERIFY_TTL_MS))))
}

/** Marks the token's user verified and adds them to the teamspaces that invited that address. */
export async function verifyEmail(store: Store, token: string): Promise<User> {
  const userId = await store.accountTokens.consume(token, 'verify')
  if (userId === undefined) throw badLink()
  const user = await store.users.markVerified(userId)
  await acceptPendingInvitations(store, user)
  return user
}

export async function requestPasswordReset(store: Store, mailer: Mailer, email: string): Promise<void> {
  const user = await store.users.byEmail(email)
  if (user) mailer.post(resetMail(user.email, mailer.link('reset', await store.accountTokens.issue(user.id, 'reset', RESET_TTL_MS))))
}

/** Sets the password of the token's user and ends all their sessions; the link proved the mailbox, so the address counts as verified. */
export async function resetPassword(store: Store, token: string, password: string): Promise<User> {
  // Checked before the token is used up, so a refused password does not cost the link.
  requireStrongPassword(password)
  const userId = await store.accountTokens.consume(token, 'reset')
  if (userId === undefined) throw badLink()
  await store.users.resetPassword(userId, password)
  return await store.users.markVerified(userId)
}
