/**
 * Inviting people to a teamspace. An invitation counts toward the plan's member limit while it
 * is pending, so a team cannot invite past its plan and have the acceptances fail later. The
 * invitee joins when they accept the mailed link, or on their own once they sign in (or confirm
 * their email) with the invited address: the reference's "automatically added once they sign in".
 */
import { LecternError } from '../errors.js'
import type { Mailer } from '../mail/index.js'
import { invitationMail } from '../mail/messages.js'
import type { Store } from '../store/index.js'
import type { Invitation, InvitedRole } from '../store/invitations.js'
import type { Membership, Team } from '../store/teams.js'
import type { User } from '../store/users.js'
import { membersAllowed, PLAN_LIMITS } from './plans.js'

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export async function invite(store: Store, mailer: Mailer, input: { team: Team; inviter: User; email: string; role: InvitedRole }): Promise<Invitation> {
  const { team, inviter, role } = input
  const email = input.email.trim()
  if (!EMAIL.test(email) || email.length > 320) throw new LecternError('validation_error', `"${input.email}" is not an email address.`)
  if (team.personalUserId !== null) throw new LecternError('forbidden', `${team.name} is a personal space, which has no members: create a teamspace to invite people.`)
  const { invitation, token } = await store.transaction(async () => {
    const members = await store.teams.members(team.id)
    if (members.some((m) => m.email.toLowerCase() === email.toLowerCase())) throw new LecternError('validation_error', `${email} is already a member of ${team.name}.`)
    const others = (await store.invitations.pending(team.id)).filter((i) => i.email.toLowerCase() !== email.toLowerCase())
    const limit = PLAN_LIMITS[team.plan].members
    if (members.length + others.length >= limit) {
      throw new LecternError('forbidden', `The ${team.plan} plan of ${team.name} allows ${limit} member${limit === 1 ? '' : 's'}, pending invitations included; cancel one or ask the operator for a larger plan.`)
    }
    return await store.invitations.upsert({ teamId: team.id, email, role, invitedBy: inviter.id, ttlMs: INVITATION_TTL_MS })
  })
  mailer.post(invitationMail(email, team.name, inviter.email, role, mailer.link('invitations', token)))
  return invitation
}

/** Joins the team of one invitation and removes it. */
async function join(store: Store, user: User, invitation: Invitation): Promise<Membership> {
  return await store.transaction(async () => {
    if (await store.teams.roleOf(invitation.teamId, user.id) === undefined) await store.teams.addMember(invitation.teamId, user.id, invitation.role, membersAllowed)
    await store.invitations.remove(invitation.teamId, invitation.id)
    return (await store.teams.membershipsOf(user.id)).find((m) => m.team.id === invitation.teamId)!
  })
}

/**
 * Accepts every pending invitation of a verified user's address (at sign-in and verification).
 * One a team can no longer honour (its plan was lowered) stays pending rather than failing the sign-in.
 */
export async function acceptPendingInvitations(store: Store, user: User): Promise<Membership[]> {
  if (!user.emailVerified) return []
  const joined: Membership[] = []
  for (const invitation of await store.invitations.forEmail(user.email)) {
    try {
      joined.push(await join(store, user, invitation))
    } catch (err) {
      if (!(err instanceof LecternError && err.code === 'forbidden')) throw err
    }
  }
  return joined
}

/** Accepts the invitation of a mailed link, for the signed-in user it was sent to. */
/** What a link's invitation is to, for its page before the invitee signs in. */
export interface InvitationPreview {
  teamName: string
  email: string
  role: InvitedRole
  expiresAt: string
}

async function validInvitation(store: Store, token: string): Promise<Invitation> {
  const invitation = await store.invitations.byToken(token)
  if (!invitation) throw new LecternError('validation_error', 'This invitation is not valid: it was accepted or cancelled, has expired, or was replaced by a newer one.')
  return invitation
}

/**
 * Needs no session: whoever holds the token may accept it, so naming its team and the address it
 * was mailed to tells them nothing they could not learn by accepting.
 */
export async function previewInvitation(store: Store, token: string): Promise<InvitationPreview> {
  const { teamId, email, role, expiresAt } = await validInvitation(store, token)
  const team = await store.teams.byPk(teamId)
  if (!team) throw new LecternError('validation_error', 'This invitation is not valid: its teamspace was deleted.')
  return { teamName: team.name, email, role, expiresAt }
}

export async function acceptInvitation(store: Store, user: User, token: string): Promise<Membership> {
  const invitation = await validInvitation(store, token)
  if (invitation.email.toLowerCase() !== user.email.toLowerCase()) {
    throw new LecternError('forbidden', `This invitation is for another email address; sign in as that address to accept it (you are signed in as ${user.email}).`)
  }
  // The link reached the invited mailbox, which proves the address as a verification link would.
  return await join(store, await store.users.markVerified(user.id), invitation)
}
