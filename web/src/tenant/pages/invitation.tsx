/**
 * `/invitations#token=...`: joining a teamspace from the mailed link. Signed out, the invitee signs
 * in, or creates an account (and is signed in with it), on this same page, which keeps the token
 * in memory meanwhile; signed in, they accept and land in the team. Accepting proves the address,
 * as a confirmation link would.
 */
import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { api } from '../../api'
import { ErrorNote } from '../../components'
import { useAction } from '../../hooks'
import { LoginForm } from '../../pages/sign-in'
import { forgetLinkToken, linkToken } from '../link-token'
import type { Team } from '../types'
import { SignUpForm, type Credentials } from './accounts'

const NO_TOKEN = <p>This page needs the link from the invitation mail, as it was sent. Open the link again.</p>

export function InvitationSignedOut({ onSignedIn }: { onSignedIn: () => void }) {
  const [token] = useState(linkToken)
  const signIn = async (credentials: Credentials) => {
    await api('POST', '/api/auth/login', { ...credentials })
    onSignedIn()
  }
  return (
    <>
      <h1>Join a teamspace</h1>
      {token ? (
        <>
          <p>Sign in to accept the invitation, or create an account with the address it was sent to.</p>
          <h2>Sign in</h2>
          <LoginForm onDone={onSignedIn} />
          <h2>New to Lectern?</h2>
          <SignUpForm onDone={signIn} />
        </>
      ) : (
        NO_TOKEN
      )}
    </>
  )
}

export function InvitationPage({ email, onJoined }: { email: string; onJoined: () => void }) {
  const [token] = useState(linkToken)
  const { route } = useLocation()
  const accept = useAction(async (value: string) => {
    const team = await api<Team>('POST', '/api/invitations/accept', { token: value })
    forgetLinkToken()
    onJoined()
    route(`/teams/${team.id}/overview`)
  })
  return (
    <section class="narrow">
      <h1>Join a teamspace</h1>
      {token ? (
        <>
          <p>You are signed in as {email}. The invitation must be for this address.</p>
          <ErrorNote error={accept.error} />
          <button onClick={() => void accept.run(token)} aria-busy={accept.busy} disabled={accept.busy}>
            Accept the invitation
          </button>
        </>
      ) : (
        NO_TOKEN
      )}
    </section>
  )
}
