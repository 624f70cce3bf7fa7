/**
 * The cloud's dashboard for its users (everyone but the operator, whose admin session keeps the
 * operator's dashboard): signed out, sign-in with sign-up and password reset beside it and the
 * pages the mailed links open; signed in, the tenant shell (./shell.tsx).
 */
import { LocationProvider, Route, Router } from 'preact-iso'
import { useEffect, useState } from 'preact/hooks'
import { LoginForm } from '../pages/sign-in'
import { ResetPage, SignUpPage, VerifyPage } from './pages/accounts'
import { onLinkToken } from './link-token'
import { InvitationSignedOut } from './pages/invitation'
import { TenantShell } from './shell'
import type { TenantSession } from './types'

export function TenantApp({ session, onSessionChange }: { session: TenantSession; onSessionChange: () => void }) {
  // Signing in or out, or a mailed link pasted into this tab, starts the pages again from the
  // address bar (sign-out has moved it to `/`; the link's page reads its token).
  const [links, setLinks] = useState(0)
  useEffect(() => onLinkToken(() => setLinks((n) => n + 1)), [])
  return (
    <LocationProvider key={`${session.user ? 'signed-in' : 'signed-out'}-${links}`}>
      {session.user ? <TenantShell session={session} onSessionChange={onSessionChange} /> : <SignedOut onSignedIn={onSessionChange} />}
    </LocationProvider>
  )
}

function SignedOut({ onSignedIn }: { onSignedIn: () => void }) {
  return (
    <main class="container narrow">
      <Router>
        <Route path="/signup" component={SignUpPage} />
        <Route path="/verify" component={VerifyPage} signedIn={false} onVerified={() => undefined} />
        <Route path="/reset" component={ResetPage} />
        <Route path="/invitations" component={InvitationSignedOut} onSignedIn={onSignedIn} />
        <Route default component={SignIn} onSignedIn={onSignedIn} />
      </Router>
    </main>
  )
}

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  return (
    <>
      <h1>Sign in to Lectern</h1>
      <LoginForm onDone={onSignedIn} />
      <p>
        <a href="/reset">Forgot password?</a>
      </p>
      <p>
        New to Lectern? <a href="/signup">Create an account</a>
      </p>
    </>
  )
}
