/**
 * A teamspace's overview: its plan and what the plan allows (members, private sources, the
 * request rate of its keys), for the owner renaming or deleting this one, and creating a
 * teamspace, which the user's personal plan allows or not.
 */
import { useLocation } from 'preact-iso'
import { useState } from 'preact/hooks'
import { can } from '../../../../src/tenancy/roles'
import { api } from '../../api'
import { Badge, ErrorNote, formatDate, formatNumber } from '../../components'
import { useAction, useLoad } from '../../hooks'
import { inPageWords } from '../confirm-first'
import type { Invitation, Member, Team, TenantPageProps } from '../types'

export function OverviewPage({ team, teams, rateLimit, emailVerified, onTeamsChanged, onNotice }: TenantPageProps) {
  return (
    <section>
      <h1>{team.personal ? 'Personal space' : team.name}</h1>
      <p>
        {team.personal ? <>Your own space, {team.name}. </> : null}
        Your role: <Badge>{team.role}</Badge> · created {formatDate(team.createdAt)}
      </p>
      <PlanLimits team={team} rateLimit={rateLimit} />
      {!team.personal && team.role === 'owner' ? <ManageTeam key={team.id} team={team} personal={teams[0]} onTeamsChanged={onTeamsChanged} onNotice={onNotice} /> : null}
      <CreateTeam personal={teams[0]} emailVerified={emailVerified} onTeamsChanged={onTeamsChanged} />
    </section>
  )
}

function PlanLimits({ team, rateLimit }: Pick<TenantPageProps, 'team' | 'rateLimit'>) {
  const members = useLoad(() => api<{ members: Member[] }>('GET', `/api/teams/${team.id}/members`), [team.id])
  // Pending invitations hold a seat; only those who manage members may list them.
  const invitations = useLoad(
    () => (can(team.role, 'manageMembers') ? api<{ invitations: Invitation[] }>('GET', `/api/teams/${team.id}/invitations`) : Promise.resolve({ invitations: [] })),
    [team.id, team.role],
  )
  const { limits } = team
  const used = members.data ? members.data.members.length : undefined
  const pending = invitations.data?.invitations.length ?? 0
  const perKey = rateLimit.keyed * limits.rateMultiplier
  return (
    <>
      <h2>Plan and limits</h2>
      <ErrorNote error={members.error ?? invitations.error} />
      <table>
        <tbody>
          <tr>
            <th scope="row">Plan</th>
            <td>{team.plan}</td>
          </tr>
          <tr>
            <th scope="row">Members</th>
            <td data-testid="members-used">
              {used === undefined ? '…' : formatNumber(used)} of {limits.members === null ? 'unlimited' : formatNumber(limits.members)}
              {pending > 0 ? ` (and ${pending} pending invitation${pending === 1 ? '' : 's'})` : ''}
            </td>
          </tr>
          <tr>
            <th scope="row">Private sources</th>
            <td>{limits.privateSources ? 'allowed (private git, Confluence, Notion, uploads)' : 'not on this plan'}</td>
          </tr>
          <tr>
            <th scope="row">Requests per API key</th>
            <td>
              {rateLimit.keyed === 0
                ? 'no limit on this install'
                : `${formatNumber(perKey)} per ${formatNumber(rateLimit.windowSeconds)} s (${limits.rateMultiplier} × the install's limit for keys)`}
            </td>
          </tr>
        </tbody>
      </table>
      <p class="muted">The operator of this service changes plans.</p>
    </>
  )
}

/** Creating a teamspace is the user's, on their personal plan, whichever team's page shows it. */
function CreateTeam({ personal, emailVerified, onTeamsChanged }: { personal: Team | undefined; emailVerified: boolean; onTeamsChanged: () => void }) {
  const { route } = useLocation()
  const create = useAction(async (form: HTMLFormElement) => {
    const team = await api<Team>('POST', '/api/teams', { name: String(new FormData(form).get('name')).trim() })
    form.reset()
    onTeamsChanged()
    route(`/teams/${team.id}/overview`)
  })
  return (
    <>
      <h2>Create a teamspace</h2>
      <p>
        A teamspace shares private libraries, policies and members; it takes the plan of your personal space.
        {personal ? (
          <>
            {' '}
            <span data-testid="creates-teams">
              Your personal plan ({personal.plan}) {personal.limits.createsTeams ? 'includes creating teamspaces.' : 'does not include creating teamspaces.'}
            </span>
          </>
        ) : null}
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void create.run(event.currentTarget)
        }}
      >
        <fieldset role="group">
          <input name="name" aria-label="Name of the new teamspace" placeholder="e.g. Platform team" required minLength={2} maxLength={64} />
          <button type="submit" aria-busy={create.busy} disabled={create.busy}>
            Create teamspace
          </button>
        </fieldset>
      </form>
      <ErrorNote error={inPageWords(create.error, emailVerified)} />
    </>
  )
}

/** Renaming, and deleting behind the team's name typed again: deletion takes its private libraries, members and keys with it. */
function ManageTeam({ team, personal, onTeamsChanged, onNotice }: { team: Team; personal: Team | undefined; onTeamsChanged: () => void; onNotice: TenantPageProps['onNotice'] }) {
  const { route } = useLocation()
  const [typed, setTyped] = useState('')
  const rename = useAction(async (form: HTMLFormElement) => {
    await api<Team>('PATCH', `/api/teams/${team.id}`, { name: String(new FormData(form).get('name')).trim() })
    onTeamsChanged()
  })
  const remove = useAction(async () => {
    const { removed, libraries } = await api<{ removed: string; libraries: string[] }>('DELETE', `/api/teams/${team.id}`)
    const home = personal ? `/teams/${personal.id}/overview` : '/'
    onNotice(libraries.length === 0 ? `Deleted ${removed}; it had no private libraries.` : `Deleted ${removed} and its ${libraries.length} private ${libraries.length === 1 ? 'library' : 'libraries'}.`, home)
    onTeamsChanged()
    route(home, true)
  })
  return (
    <>
      <h2>Rename</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void rename.run(event.currentTarget)
        }}
      >
        <fieldset role="group">
          <input name="name" aria-label="New name of the teamspace" defaultValue={team.name} key={team.name} required minLength={2} maxLength={64} />
          <button type="submit" aria-busy={rename.busy} disabled={rename.busy}>
            Rename
          </button>
        </fieldset>
      </form>
      <ErrorNote error={rename.error} />
      <h2>Delete</h2>
      <p>
        Deleting {team.name} removes its private libraries, its members' access and every key of the team. Type the teamspace's name to confirm.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          if (typed === team.name) void remove.run()
        }}
      >
        <fieldset role="group">
          <input aria-label={`Type ${team.name} to confirm`} value={typed} onInput={(event) => setTyped(event.currentTarget.value)} autocomplete="off" />
          <button type="submit" class="contrast" disabled={typed !== team.name || remove.busy} aria-busy={remove.busy}>
            Delete teamspace
          </button>
        </fieldset>
      </form>
      <ErrorNote error={remove.error} />
    </>
  )
}
