/**
 * A teamspace's members and pending invitations. Everyone sees the members; owners and admins
 * (`manageMembers`) invite, change roles, remove and cancel, and only they see those controls.
 * A role changes only on "Change role" (a select alone would save on every arrow key), and each
 * action's outcome is announced in the page's status line. The server checks every action again;
 * a refusal shows as it words it.
 */
import { useLocation } from 'preact-iso'
import { useEffect, useState } from 'preact/hooks'
import { can } from '../../../../src/tenancy/roles'
import { api } from '../../api'
import { ActionsHeader, Empty, ErrorNote, formatDate } from '../../components'
import { useAction, useLoad } from '../../hooks'
import { inPageWords } from '../confirm-first'
import type { Invitation, InvitedRole, Member, TenantPageProps } from '../types'

const INVITED_ROLES: InvitedRole[] = ['developer', 'admin']

export function MembersPage({ team, email, emailVerified, onTeamsChanged }: TenantPageProps) {
  const { route } = useLocation()
  const manages = can(team.role, 'manageMembers')
  const members = useLoad(() => api<{ members: Member[] }>('GET', `/api/teams/${team.id}/members`), [team.id])
  const invitations = useLoad(
    () => (manages ? api<{ invitations: Invitation[] }>('GET', `/api/teams/${team.id}/invitations`) : Promise.resolve({ invitations: [] })),
    [team.id, manages],
  )
  // Removing someone revokes their keys for the team: it takes a second click.
  const [confirming, setConfirming] = useState<number>()
  const [done, setDone] = useState<string>()
  // The member whose role just changed: their row's select keeps the focus once the table is redrawn.
  const [refocus, setRefocus] = useState<number>()
  const setRole = useAction(async (member: Member, role: InvitedRole) => {
    setDone(undefined)
    await api('PATCH', `/api/teams/${team.id}/members/${member.userId}`, { role })
    setDone(`${member.email} is now ${role}.`)
    setRefocus(member.userId)
    members.reload()
  })
  useEffect(() => {
    if (refocus === undefined || members.loading) return
    document.getElementById(roleControlId(refocus))?.focus()
    setRefocus(undefined)
  }, [members.data, members.loading])
  const remove = useAction(async (member: Member) => {
    setDone(undefined)
    await api('DELETE', `/api/teams/${team.id}/members/${member.userId}`)
    setConfirming(undefined)
    if (member.email === email) {
      onTeamsChanged()
      route('/', true)
    } else {
      setDone(`Removed ${member.email}; their API keys for this teamspace are revoked.`)
      members.reload()
    }
  })
  const cancel = useAction(async (invitation: Invitation) => {
    setDone(undefined)
    await api('DELETE', `/api/teams/${team.id}/invitations/${invitation.id}`)
    setDone(`Cancelled the invitation of ${invitation.email}.`)
    invitations.reload()
  })
  return (
    <section>
      <h1>Members of {team.personal ? 'your personal space' : team.name}</h1>
      {team.personal ? <p>A personal space has only you. Create a teamspace on the Overview to work with others.</p> : null}
      {manages && !team.personal ? <InviteForm teamId={team.id} emailVerified={emailVerified} onInvited={invitations.reload} /> : null}
      <p role="status" aria-label="Members changes">
        {done}
      </p>
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
                    {mayChange && !self ? <RoleControl member={member} busy={setRole.busy} onChange={(role) => void setRole.run(member, role)} /> : member.role}
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

const roleControlId = (userId: number) => `role-of-${userId}`

/** A member's role: pick one, then "Change role" saves it. */
function RoleControl({ member, busy, onChange }: { member: Member; busy: boolean; onChange: (role: InvitedRole) => void }) {
  const [picked, setPicked] = useState(member.role as InvitedRole)
  // A saved change (here or reloaded) is the new starting point.
  useEffect(() => setPicked(member.role as InvitedRole), [member.role])
  return (
    <form
      class="inline"
      onSubmit={(event) => {
        event.preventDefault()
        onChange(picked)
      }}
    >
      <select id={roleControlId(member.userId)} aria-label={`Role of ${member.email}`} value={picked} onChange={(event) => setPicked(event.currentTarget.value as InvitedRole)}>
        {INVITED_ROLES.map((role) => (
          <option key={role} value={role}>
            {role}
          </option>
        ))}
      </select>
      <button type="submit" class="secondary small" disabled={busy || picked === member.role} aria-busy={busy} aria-label={`Change the role of ${member.email}`}>
        Change role
      </button>
    </form>
  )
}

function InviteForm({ teamId, emailVerified, onInvited }: { teamId: number; emailVerified: boolean; onInvited: () => void }) {
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
      <ErrorNote error={inPageWords(invite.error, emailVerified)} />
    </form>
  )
}
