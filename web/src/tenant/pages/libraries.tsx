/**
 * A teamspace's libraries: its own private ones and the public ones its policy lets through (what
 * its API keys find in search), each with its state. The teamspace's own libraries link to their
 * metrics; public libraries are shared by every teamspace, so their usage is not the team's to read.
 */
import { can } from '../../../../src/tenancy/roles'
import { api } from '../../api'
import { Badge, Empty, ErrorNote, formatDate, formatNumber, StateBadge } from '../../components'
import { useLoad } from '../../hooks'
import type { Team, TenantPageProps } from '../types'
import { AddSourceForm } from './add-source'
import { LibraryMetricsPage } from './library-metrics'

export interface TeamLibraryRow {
  id: string
  title: string
  sourceKind: string
  owned: boolean
  allowed: boolean
  state: string
  snippets: number
  updatedAt: string | null
  errorCode: string | null
  errorMessage: string | null
}

/** The dashboard path of one of the teamspace's libraries' metrics. */
export const libraryMetricsPath = (teamId: number, libraryId: string) => `/teams/${teamId}/libraries${libraryId}`

/** The team's libraries; a path below it (`/teams/<ID>/libraries/<owner>/<name>`) is one library's metrics. */
export function TeamLibrariesPage({ team, sub }: TenantPageProps) {
  const libraryId = `/${sub}`
  // Keyed by team and library: a switch remounts, so no answer about the previous team outlives it.
  if (sub) return <OwnedLibraryMetrics key={`${team.id}${libraryId}`} teamId={team.id} libraryId={libraryId} />
  return <LibraryList team={team} />
}

/**
 * The metrics endpoint answers for a library of any of the member's teamspaces, so the page itself
 * checks that the teamspace of the URL owns the library before showing its usage under that team.
 */
function OwnedLibraryMetrics({ teamId, libraryId }: { teamId: number; libraryId: string }) {
  const libraries = useLoad(() => api<{ libraries: TeamLibraryRow[] }>('GET', `/api/teams/${teamId}/libraries`), [teamId])
  const rows = libraries.data?.libraries
  if (libraries.error) return <ErrorNote error={libraries.error} />
  if (!rows) return <p aria-busy="true">Loading…</p>
  if (rows.some((row) => row.id === libraryId && row.owned)) return <LibraryMetricsPage teamId={teamId} libraryId={libraryId} />
  return (
    <section>
      <p>
        <a href={`/teams/${teamId}/libraries`}>← Libraries</a>
      </p>
      <h1>No such library in this teamspace</h1>
      <Empty>
        This teamspace owns no library <code>{libraryId}</code>: only a teamspace's own libraries have metrics here. Switch to the teamspace that owns it.
      </Empty>
    </section>
  )
}

function LibraryList({ team }: { team: Team }) {
  const teamId = team.id
  const libraries = useLoad(() => api<{ libraries: TeamLibraryRow[] }>('GET', `/api/teams/${teamId}/libraries`), [teamId], 10_000)
  const rows = libraries.data?.libraries
  return (
    <section>
      <h1>Libraries</h1>
      <p>The teamspace's own libraries, and the public libraries its policies let its API keys reach.</p>
      {can(team.role, 'managePrivateSources') && team.limits.privateSources ? <AddSourceForm teamId={teamId} onAdded={libraries.reload} /> : null}
      <ErrorNote error={libraries.error} />
      {!rows && !libraries.error ? <p aria-busy="true">Loading…</p> : null}
      {rows && rows.length === 0 ? <Empty>No library is reachable: owners and admins add private sources here (or with a key of the teamspace), or loosen the policies.</Empty> : null}
      {rows && rows.length > 0 ? (
        <table class="striped">
          <thead>
            <tr>
              <th scope="col">Library</th>
              <th scope="col">Source</th>
              <th scope="col">Access</th>
              <th scope="col">State</th>
              <th scope="col" class="number">
                Snippets
              </th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <th scope="row">
                  {row.owned ? <a href={libraryMetricsPath(teamId, row.id)}>{row.id}</a> : row.id}
                  <br />
                  <small>{row.title}</small>
                </th>
                <td>{row.sourceKind}</td>
                <td>
                  {row.owned ? <Badge>private, this teamspace's</Badge> : <Badge>public</Badge>}{' '}
                  {row.allowed ? null : <Badge title="The policies keep this teamspace's keys from it">blocked by policy</Badge>}
                </td>
                <td>
                  <StateBadge state={row.state} />
                  {row.errorMessage ? <small> {row.errorMessage}</small> : null}
                </td>
                <td class="number">{formatNumber(row.snippets)}</td>
                <td>{formatDate(row.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  )
}
