/**
 * The cloud's dashboard for its users (everyone but the operator, whose admin session keeps the
 * operator's dashboard): signed out, sign-in with sign-up and password reset beside it and the
 * pages the mailed links open; signed in, the tenant shell (./shell.tsx).
 */
import { LocationProvider, Route, Router } from 'preact-iso'
import { useEffect } from 'preact/hooks'
import { LoginForm } from '../pages/sign-in'
import { ResetPage, SignUpPage, VerifyPage } from './pages/accounts'
import { reloadOnLinkToken } from './link-token'
import { InvitationSignedOut } from './pages/invitation'
import { TenantShell } from './shell'
import type { TenantSession } from './types'

export function TenantApp({ session, onSessionChange }: { session: TenantSession; onSessionChange: () => void }) {
  useEffect(reloadOnLinkToken, [])
  // Signing in or out starts the router again from the address bar (sign-out has moved it to `/`).
  return (
    <LocationProvider key={session.user ? 'signed-in' : 'signed-out'}>
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
