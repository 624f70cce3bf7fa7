/**
 * Invitations to a teamspace (migration 0017): pending until the invitee accepts, with a
 * single-use token (stored as its SHA-256) for the link in the invitation mail. One pending
 * invitation per team and email; inviting again replaces it with a fresh token and expiry.
 */
import { createHash, randomBytes } from 'node:crypto'
import { LecternError } from '../errors.js'
import type { TeamRole } from './teams.js'
import type { Sql } from './sql.js'

export type InvitedRole = Exclude<TeamRole, 'owner'>

export interface Invitation {
  id: number
  teamId: number
  email: string
  role: InvitedRole
  invitedBy: number | null
  createdAt: string
  expiresAt: string
}

interface InvitationRow {
  pk: number
  team_pk: number
  email: string
  role: InvitedRole
  invited_by_user_pk: number | null
  created_at: string
  expires_at: string
}

const toInvitation = (row: InvitationRow): Invitation => ({
  id: row.pk,
  teamId: row.team_pk,
  email: row.email,
  role: row.role,
  invitedBy: row.invited_by_user_pk,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
})

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

export interface InvitationsRepository {
  /** Creates (or renews) the invitation and returns it with its token, shown once in the mail. */
  upsert(input: { teamId: number; email: string; role: InvitedRole; invitedBy: number; ttlMs: number; now?: number }): Promise<{ invitation: Invitation; token: string }>
  /** The team's unexpired invitations, oldest first. */
  pending(teamId: number, now?: number): Promise<Invitation[]>
  /** The unexpired invitations of an email address, to any team. */
  forEmail(email: string, now?: number): Promise<Invitation[]>
  /** The unexpired invitation of a token. */
  byToken(token: string, now?: number): Promise<Invitation | undefined>
  /** Removes one of the team's invitations (cancelled, or accepted); 404 when the team has none of that ID. */
  remove(teamId: number, id: number): Promise<Invitation>
}

export function createInvitationsRepository(sql: Sql): InvitationsRepository {
  const iso = (now: number) => new Date(now).toISOString()
  return {
    async upsert({ teamId, email, role, invitedBy, ttlMs, now = Date.now() }) {
      const token = randomBytes(32).toString('base64url')
      const row = await sql.get<InvitationRow>(
        `INSERT INTO invitations (team_pk, email, role, token_hash, invited_by_user_pk, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (team_pk, email) DO UPDATE SET role = excluded.role, token_hash = excluded.token_hash,
           invited_by_user_pk = excluded.invited_by_user_pk, created_at = excluded.created_at, expires_at = excluded.expires_at
         RETURNING *`,
        [teamId, email.trim(), role, sha256(token), invitedBy, iso(now), iso(now + ttlMs)],
      )
      return { invitation: toInvitation(row!), token }
    },
    pending: async (teamId, now = Date.now()) =>
      (await sql.all<InvitationRow>('SELECT * FROM invitations WHERE team_pk = ? AND expires_at > ? ORDER BY pk', [teamId, iso(now)])).map(toInvitation),
    forEmail: async (email, now = Date.now()) =>
      (await sql.all<InvitationRow>('SELECT * FROM invitations WHERE email = ? AND expires_at > ? ORDER BY pk', [email.trim(), iso(now)])).map(toInvitation),
    async byToken(token, now = Date.now()) {
      const row = await sql.get<InvitationRow>('SELECT * FROM invitations WHERE token_hash = ? AND expires_at > ?', [sha256(token), iso(now)])
      return row && toInvitation(row)
    },
    async remove(teamId, id) {
      const row = await sql.get<InvitationRow>('DELETE FROM invitations WHERE team_pk = ? AND pk = ? RETURNING *', [teamId, id])
      if (!row) throw new LecternError('not_found', `This teamspace has no pending invitation ${id}.`)
      return toInvitation(row)
    },
  }
}
