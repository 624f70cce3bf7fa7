/**
 * A teamspace's connections: the Confluence sites, Notion workspaces and private git hosts its
 * private libraries read through, the teamspace's own (never the install's). Owners and admins
 * on a plan with private sources add and remove them; every member sees the list, never a token.
 */
import { can } from '../../../../src/tenancy/roles'
import { ConnectionsSection } from '../../pages/settings-connections'
import type { TenantPageProps } from '../types'

export function TeamConnectionsPage({ team }: TenantPageProps) {
  const manages = can(team.role, 'managePrivateSources')
  return (
    <section>
      <h1>Connections of {team.personal ? 'your personal space' : team.name}</h1>
      <p>
        A git host here lets this teamspace's keys add its private repositories without a token; a Confluence site or Notion workspace is added as a library
        from the Libraries page or with a teamspace key. No other teamspace can use them.
      </p>
      {manages && !team.limits.privateSources ? <p class="muted">Connections to private sources need a pro or team plan.</p> : null}
      {!manages ? <p class="muted">Owners and admins add and remove connections.</p> : null}
      <ConnectionsSection
        base={`/api/teams/${team.id}/connections`}
        manage={manages && team.limits.privateSources}
        intro="This teamspace's Confluence sites, Notion workspaces and private git hosts."
      />
    </section>
  )
}
