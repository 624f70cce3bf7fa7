/**
 * The pages of a teamspace, in the order of the tenant shell's navigation: one entry per page,
 * served at `/teams/<team ID>/<path>` (and any path below it, given to the page as `sub`).
 */
import type { FunctionComponent } from 'preact'
import { TeamConnectionsPage } from './pages/connections'
import { TeamKeysPage } from './pages/keys'
import { TeamLibrariesPage } from './pages/libraries'
import { MembersPage } from './pages/members'
import { OverviewPage } from './pages/overview'
import { PoliciesPage } from './pages/policies'
import type { TenantPageProps } from './types'

export interface TenantNavItem {
  path: string
  label: string
  page: FunctionComponent<TenantPageProps>
}

export const NAV: TenantNavItem[] = [
  { path: 'overview', label: 'Overview', page: OverviewPage },
  { path: 'members', label: 'Members', page: MembersPage },
  { path: 'keys', label: 'API keys', page: TeamKeysPage },
  { path: 'libraries', label: 'Libraries', page: TeamLibrariesPage },
  { path: 'connections', label: 'Connections', page: TeamConnectionsPage },
  { path: 'policies', label: 'Policies', page: PoliciesPage },
]
