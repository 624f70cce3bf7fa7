/**
 * The teamspace pages of this part (policies, libraries, a library's metrics) under
 * `/teams/:team/...`, for a member signed in to the cloud, until the tenant shell (shell.tsx, its
 * teamspace switcher and NAV) routes them itself. The member's role in the team, which decides
 * whether the policies are editable, comes from GET /api/teams.
 */
import type { ComponentType } from 'preact'
import { Route, Router, useRoute } from 'preact-iso'
import { api } from '../api'
import { ErrorNote } from '../components'
import { useLoad } from '../hooks'
import { LibraryMetricsPage } from './pages/library-metrics'
import { TeamLibrariesPage } from './pages/libraries'
import { PoliciesPage, type TeamRole } from './pages/policies'

interface TeamItem {
  id: number
  name: string
  role: TeamRole
}

function TeamPage({ page }: { page: 'policies' | 'libraries' | 'metrics' }) {
  const { params } = useRoute()
  const teamId = Number(params.team)
  const teams = useLoad(() => api<{ teams: TeamItem[] }>('GET', '/api/teams'), [])
  const team = teams.data?.teams.find((t) => t.id === teamId)
  if (!team) {
    return (
      <main class="container">
        <ErrorNote error={teams.error} />
        {teams.data ? <p>No teamspace {params.team} of yours.</p> : teams.error ? null : <p aria-busy="true">Loading…</p>}
      </main>
    )
  }
  return (
    <main class="container">
      <nav aria-label="Teamspace">
        <ul>
          <li>
            <strong>{team.name}</strong>
          </li>
        </ul>
        <ul>
          <li>
            <a href={`/teams/${team.id}/libraries`}>Libraries</a>
          </li>
          <li>
            <a href={`/teams/${team.id}/policies`}>Policies</a>
          </li>
        </ul>
      </nav>
      {page === 'policies' ? <PoliciesPage teamId={team.id} role={team.role} /> : null}
      {page === 'libraries' ? <TeamLibrariesPage teamId={team.id} /> : null}
      {page === 'metrics' ? <LibraryMetricsPage teamId={team.id} libraryId={`/${params.owner}/${params.name}`} /> : null}
    </main>
  )
}

export function TeamRoutes({ fallback }: { fallback: ComponentType }) {
  return (
    <Router>
      <Route path="/teams/:team/policies" component={() => <TeamPage page="policies" />} />
      <Route path="/teams/:team/libraries" component={() => <TeamPage page="libraries" />} />
      <Route path="/teams/:team/libraries/:owner/:name" component={() => <TeamPage page="metrics" />} />
      <Route default component={fallback} />
    </Router>
  )
}
