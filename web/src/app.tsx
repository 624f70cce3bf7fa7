/**
 * The shell: asks the server who is here on every load, then shows the first-run setup (no admin
 * yet), the sign-in page, or the dashboard with its navigation. Pages are routed in the browser
 * (preact-iso); the server answers any of their paths with this app (server/routes/dashboard/page.ts).
 */
import { LocationProvider, Route, Router, useLocation } from 'preact-iso'
import { useEffect, useState } from 'preact/hooks'
import { api, SESSION_ENDED, type Session } from './api'
import { ErrorNote } from './components'
import { useLoad } from './hooks'
import { AccountPage } from './pages/account'
import { AuditPage } from './pages/audit'
import { BackupsPage } from './pages/backups'
import { KeysPage } from './pages/keys'
import { LibrariesPage } from './pages/libraries'
import { LibraryPage } from './pages/library'
import { QueuePage } from './pages/queue'
import { SettingsPage } from './pages/settings'
import { LoginPage, SetupPage } from './pages/sign-in'
import { TransferPage } from './pages/transfer'
import { UsagePage } from './pages/usage'
import { SignOut } from './sign-out'
import { TenantApp } from './tenant/app'

const NAV = [
  { href: '/libraries', label: 'Libraries' },
  { href: '/queue', label: 'Parse Queue' },
  { href: '/keys', label: 'API keys' },
  { href: '/usage', label: 'Usage' },
  { href: '/transfer', label: 'Import/export' },
  { href: '/backups', label: 'Backups' },
  { href: '/audit', label: 'Audit log' },
  { href: '/settings', label: 'Settings' },
  { href: '/account', label: 'Account' },
]

export function App() {
  const [generation, setGeneration] = useState(0)
  const session = useLoad(() => api<Session>('GET', '/api/session'), [generation])
  const refresh = () => setGeneration((n) => n + 1)
  useEffect(() => {
    window.addEventListener(SESSION_ENDED, refresh)
    return () => window.removeEventListener(SESSION_ENDED, refresh)
  }, [])
  if (!session.data) {
    return (
      <main class="container">
        {session.error ? <ErrorNote error={session.error} /> : <p aria-busy="true">Loading…</p>}
        {session.error ? <button onClick={session.reload}>Try again</button> : null}
      </main>
    )
  }
  const { user, setupRequired } = session.data
  if (setupRequired && !user) return <SetupPage onDone={refresh} />
  // The cloud's users other than the operator (signed out, or members) get the tenants' dashboard.
  if (session.data.mode === 'cloud' && user?.role !== 'admin') return <TenantApp session={session.data} onSessionChange={refresh} />
  if (!user) return <LoginPage onDone={refresh} sso={session.data.sso} />
  if (user.role !== 'admin') {
    return (
      <main class="container">
        <h1>Lectern</h1>
        <p>Signed in as {user.email}, who is not an admin. Ask an admin to run `lectern admin create` for you with the admin role.</p>
        <SignOut onDone={refresh} />
      </main>
    )
  }
  return (
    <LocationProvider>
      <Shell session={session.data} onSignedOut={refresh} />
    </LocationProvider>
  )
}

function Shell({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const { path } = useLocation()
  return (
    <>
      <header class="container">
        <nav aria-label="Main">
          <ul>
            <li>
              <a href="/libraries" class="brand">
                <strong>Lectern</strong>
              </a>
            </li>
          </ul>
          <ul>
            {NAV.map((item) => (
              <li key={item.href}>
                <a href={item.href} aria-current={path.startsWith(item.href) || (path === '/' && item.href === '/libraries') ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
            <li>
              <SignOut onDone={onSignedOut} />
            </li>
          </ul>
        </nav>
      </header>
      <main class="container">
        <Router>
          <Route path="/" component={LibrariesPage} mode={session.mode} />
          <Route path="/setup" component={LibrariesPage} mode={session.mode} />
          <Route path="/libraries" component={LibrariesPage} mode={session.mode} />
          <Route path="/libraries/:owner/:name" component={LibraryPage} mode={session.mode} />
          <Route path="/queue" component={QueuePage} />
          <Route path="/keys" component={KeysPage} />
          <Route path="/settings" component={SettingsPage} />
          <Route path="/usage" component={UsagePage} />
          <Route path="/transfer" component={() => <TransferPage mode={session.mode} />} />
          <Route path="/backups" component={BackupsPage} />
          <Route path="/audit" component={AuditPage} />
          <Route path="/account" component={() => <AccountPage email={session.user!.email} />} />
          <Route default component={NotFound} />
        </Router>
      </main>
      <footer class="container">
        <small>
          Lectern {session.version} · {session.mode} · signed in as {session.user!.email}
        </small>
      </footer>
    </>
  )
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no page here. Go to the <a href="/libraries">libraries</a>.
      </p>
    </section>
  )
}
