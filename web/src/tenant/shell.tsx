/**
 * The tenant shell: a signed-in cloud user's teamspaces. The team is in the URL
 * (`/teams/<ID>/<page>`), so a reload or a shared link keeps it; the switcher lists
 * `GET /api/teams` (personal space first) and moves to the same page of another team. While the
 * address is unconfirmed a banner offers a new confirmation link.
 */
import { Route, Router, useLocation } from 'preact-iso'
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api'
import { ErrorNote } from '../components'
import { useAction, useLoad } from '../hooks'
import { SignOut } from '../sign-out'
import { NAV, type TenantNavItem } from './nav'
import { TenantAccountPage } from './pages/account'
import { ResetPage, VerifyPage } from './pages/accounts'
import { InvitationPage } from './pages/invitation'
import type { Team, TeamList, TenantSession } from './types'

const teamInPath = (path: string): number | undefined => {
  const match = /^\/teams\/(\d+)(?:\/|$)/.exec(path)
  return match ? Number(match[1]) : undefined
}

export function TenantShell({ session, onSessionChange }: { session: TenantSession; onSessionChange: () => void }) {
  const teams = useLoad(() => api<TeamList>('GET', '/api/teams'), [session])
  const { path } = useLocation()
  // Off the team pages (Account), the switcher and the links keep the team last shown.
  const [lastTeam, setLastTeam] = useState<number>()
  const inPath = teamInPath(path)
  useEffect(() => {
    if (inPath !== undefined) setLastTeam(inPath)
  }, [inPath])
  // An outcome told on the page it leads to (a deleted team's, on the personal space); gone once the user moves on.
  const [notice, setNotice] = useState<{ text: string; path: string }>()
  useEffect(() => {
    if (notice && notice.path !== path) setNotice(undefined)
  }, [path])
  const list = teams.data?.teams ?? []
  const current = inPath ?? lastTeam ?? list[0]?.id
  const email = session.user!.email
  const pageProps = {
    teams: teams.data,
    email,
    emailVerified: session.emailVerified !== false,
    onTeamsChanged: teams.reload,
    teamsLoading: teams.loading,
    onNotice: (text: string, at: string) => setNotice({ text, path: at }),
  }
  return (
    <>
      <header class="container">
        <nav aria-label="Main">
          <ul>
            <li>
              <a href="/" class="brand">
                <strong>Lectern</strong>
              </a>
            </li>
            <li>
              <TeamSwitcher teams={list} current={current} />
            </li>
          </ul>
          <ul>
            {current !== undefined
              ? NAV.map((item) => (
                  <li key={item.path}>
                    <a href={`/teams/${current}/${item.path}`} aria-current={inPath !== undefined && path.split('/')[3] === item.path ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))
              : null}
            <li>
              <a href="/account" aria-current={path === '/account' ? 'page' : undefined}>
                Account
              </a>
            </li>
            <li>
              <SignOut onDone={onSessionChange} />
            </li>
          </ul>
        </nav>
      </header>
      {session.emailVerified === false ? <UnconfirmedBanner email={email} /> : null}
      <main class="container">
        <ErrorNote error={teams.error} />
        {notice?.path === path ? (
          <p role="status" aria-label="Notice">
            {notice.text}
          </p>
        ) : null}
        <Router>
          <Route path="/" component={Home} teams={teams.data} />
          <Route path="/teams/:teamId" component={Home} teams={teams.data} />
          {NAV.map((item) => (
            <Route key={item.path} path={`/teams/:teamId/${item.path}/:sub*`} component={TeamPage} item={item} {...pageProps} />
          ))}
          <Route path="/account" component={TenantAccountPage} email={email} emailVerified={pageProps.emailVerified} />
          <Route path="/verify" component={VerifyPage} signedIn onVerified={onSessionChange} />
          <Route path="/invitations" component={InvitationPage} email={email} onJoined={onSessionChange} />
          <Route path="/reset" component={ResetPage} />
          <Route default component={NotFound} />
        </Router>
      </main>
      <footer class="container">
        <small>
          Lectern {session.version} · signed in as {email}
        </small>
      </footer>
    </>
  )
}

function TeamSwitcher({ teams, current }: { teams: Team[]; current: number | undefined }) {
  const { path, route } = useLocation()
  if (teams.length === 0) return null
  // The same page in the other team; a page's own sub-pages belong to the team left behind.
  const page = teamInPath(path) !== undefined ? (path.split('/')[3] ?? NAV[0]!.path) : NAV[0]!.path
  return (
    <select aria-label="Teamspace" value={current} onChange={(event) => route(`/teams/${event.currentTarget.value}/${page}`)}>
      {teams.map((team) => (
        <option key={team.id} value={team.id}>
          {team.personal ? `Personal space (${team.name})` : team.name}
        </option>
      ))}
    </select>
  )
}

/** `/` and `/teams/<ID>`: the team's first page, the personal space's at `/`. */
function Home({ teams, teamId }: { teams?: TeamList; teamId?: string }) {
  const { route } = useLocation()
  const target = teamId ?? teams?.teams[0]?.id
  useEffect(() => {
    if (target !== undefined) route(`/teams/${target}/${NAV[0]!.path}`, true)
  }, [target])
  return <p aria-busy="true">Loading…</p>
}

interface TeamPageProps {
  item: TenantNavItem
  teamId: string
  sub?: string
  teams?: TeamList
  email: string
  emailVerified: boolean
  onTeamsChanged: () => void
  onNotice: (text: string, path: string) => void
  teamsLoading: boolean
}

function TeamPage({ item, teamId, sub, teams, teamsLoading, ...props }: TeamPageProps) {
  const team = teams?.teams.find((t) => String(t.id) === teamId)
  // A team just joined or created is in the list once it reloads.
  if (!teams || (!team && teamsLoading)) return <p aria-busy="true">Loading…</p>
  if (!team) {
    return (
      <section>
        <h1>No such teamspace</h1>
        <p>
          You are not a member of a teamspace with ID {teamId}. Go to <a href="/">your personal space</a>.
        </p>
      </section>
    )
  }
  const Page = item.page
  return <Page team={team} teams={teams.teams} rateLimit={teams.rateLimit} sub={sub} {...props} />
}

function UnconfirmedBanner({ email }: { email: string }) {
  const [sent, setSent] = useState<string>()
  const resend = useAction(async () => {
    setSent((await api<{ message: string }>('POST', '/api/auth/verify-resend')).message)
  })
  return (
    <div class="container">
      <article class="banner" aria-label="Unconfirmed email">
        <p>
          Confirm your email: open the link we mailed to {email}. Until then you cannot create API keys or teamspaces, or invite anyone.
        </p>
        <button class="secondary small" onClick={() => void resend.run()} aria-busy={resend.busy} disabled={resend.busy}>
          Send the link again
        </button>
        {sent ? <p role="status">{sent}</p> : null}
        <ErrorNote error={resend.error} />
      </article>
    </div>
  )
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no page here. Go to <a href="/">your personal space</a>.
      </p>
    </section>
  )
}
