/**
 * A teamspace's members and pending invitations. Everyone sees the members; owners and admins
 * (`manageMembers`) invite, change roles, remove and cancel, and only they see those controls.
 * The server checks every action again; a refusal shows as it words it.
 */
import { useLocation } from 'preact-iso'
import { useState } from 'preact/hooks'
import { can } from '../../../../src/tenancy/roles'
import { api } from '../../api'
import { ActionsHeader, Empty, ErrorNote, formatDate } from '../../components'
import { useAction, useLoad } from '../../hooks'
import type { Invitation, InvitedRole, Member, TenantPageProps } from '../types'

const INVITED_ROLES: InvitedRole[] = ['developer', 'admin']

export function MembersPage({ team, email, onTeamsChanged }: TenantPageProps) {
  const { route } = useLocation()
  const manages = can(team.role, 'manageMembers')
  const members = useLoad(() => api<{ members: Member[] }>('GET', `/api/teams/${team.id}/members`), [team.id])
  const invitations = useLoad(
    () => (manages ? api<{ invitations: Invitation[] }>('GET', `/api/teams/${team.id}/invitations`) : Promise.resolve({ invitations: [] })),
    [team.id, manages],
  )
  // Removing someone revokes their keys for the team: it takes a second click.
  const [confirming, setConfirming] = useState<number>()
  const setRole = useAction(async (member: Member, role: InvitedRole) => {
    await api('PATCH', `/api/teams/${team.id}/members/${member.userId}`, { role })
    members.reload()
  })
  const remove = useAction(async (member: Member) => {
    await api('DELETE', `/api/teams/${team.id}/members/${member.userId}`)
    setConfirming(undefined)
    if (member.email === email) {
      onTeamsChanged()
      route('/', true)
    } else members.reload()
  })
  const cancel = useAction(async (invitation: Invitation) => {
    await api('DELETE', `/api/teams/${team.id}/invitations/${invitation.id}`)
    invitations.reload()
  })
  return (
    <section>
      <h1>Members of {team.personal ? 'your personal space' : team.name}</h1>
      {team.personal ? <p>A personal space has only you. Create a teamspace on the Overview to work with others.</p> : null}
      {manages && !team.personal ? <InviteForm teamId={team.id} onInvited={invitations.reload} /> : null}
      <ErrorNote error={members.error ?? setRole.error ?? remove.error} />
      {members.data ? (
        <table class="striped">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
              <ActionsHeader />
            </tr>
          </thead>
          <tbody>
            {members.data.members.map((member) => {
              const self = member.email === email
              // The owner keeps the owner role and is never removed; anyone may leave.
              const mayChange = manages && member.role !== 'owner'
              const mayRemove = member.role !== 'owner' && (manages || self)
              return (
                <tr key={member.userId}>
                  <td>
                    {member.email}
                    {self ? ' (you)' : ''}
                  </td>
                  <td>
                    {mayChange && !self ? (
                      <select
                        aria-label={`Role of ${member.email}`}
                        value={member.role}
                        disabled={setRole.busy}
                        onChange={(event) => void setRole.run(member, event.currentTarget.value as InvitedRole)}
                      >
                        {INVITED_ROLES.map((role) => (
                          <option key={role} value={role}>
                            {role}
                          </option>
                        ))}
                      </select>
                    ) : (
                      member.role
                    )}
                  </td>
                  <td>{formatDate(member.joinedAt)}</td>
                  <td>
                    {!mayRemove ? null : confirming === member.userId ? (
                      <span role="group" aria-label={`Confirm removing ${member.email}`}>
                        <button class="contrast small" onClick={() => void remove.run(member)}>
                          {self ? 'Leave now' : `Remove ${member.email} now`}
                        </button>{' '}
                        <button class="secondary outline small" onClick={() => setConfirming(undefined)}>
                          Keep
                        </button>
                      </span>
                    ) : (
                      <button class="secondary outline small" onClick={() => setConfirming(member.userId)} aria-label={self ? 'Leave the teamspace' : `Remove ${member.email}`}>
                        {self ? 'Leave…' : 'Remove…'}
                      </button>
                    )}
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      ) : null}
      {confirming !== undefined ? <p class="muted">Removing a member revokes their API keys for this teamspace at once.</p> : null}
      {manages && !team.personal ? (
        <>
          <h2>Pending invitations</h2>
          <ErrorNote error={invitations.error ?? cancel.error} />
          {invitations.data && invitations.data.invitations.length === 0 ? <Empty>No pending invitations.</Empty> : null}
          {invitations.data && invitations.data.invitations.length > 0 ? (
            <table class="striped">
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Expires</th>
                  <ActionsHeader />
                </tr>
              </thead>
              <tbody>
                {invitations.data.invitations.map((invitation) => (
                  <tr key={invitation.id}>
                    <td>{invitation.email}</td>
                    <td>{invitation.role}</td>
                    <td>{formatDate(invitation.expiresAt)}</td>
                    <td>
                      <button class="secondary outline small" onClick={() => void cancel.run(invitation)} aria-label={`Cancel the invitation of ${invitation.email}`}>
                        Cancel
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      ) : null}
    </section>
  )
}

function InviteForm({ teamId, onInvited }: { teamId: number; onInvited: () => void }) {
  const [sent, setSent] = useState<string>()
  const invite = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form)
    const invitation = await api<Invitation>('POST', `/api/teams/${teamId}/invitations`, { email: String(data.get('email')).trim(), role: String(data.get('role')) })
    setSent(`Invitation mailed to ${invitation.email} as ${invitation.role}.`)
    form.reset()
    onInvited()
  })
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault()
        setSent(undefined)
        void invite.run(event.currentTarget)
      }}
    >
      <fieldset role="group">
        <input name="email" type="email" aria-label="Email to invite" placeholder="colleague@example.com" required autocomplete="off" />
        <select name="role" aria-label="Role of the invitee">
          {INVITED_ROLES.map((role) => (
            <option key={role} value={role}>
              {role}
            </option>
          ))}
        </select>
        <button type="submit" aria-busy={invite.busy} disabled={invite.busy}>
          Invite
        </button>
      </fieldset>
      {sent ? <p role="status">{sent}</p> : null}
      <ErrorNote error={invite.error} />
    </form>
  )
}
