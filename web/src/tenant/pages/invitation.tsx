/**
 * `/invitations#token=...`: joining a teamspace from the mailed link. The page first reads what
 * the token invites to (POST /api/invitations/peek, no session) and names the team, the role and
 * the invited address. Signed out, the invitee says whether they have an account and then signs
 * in, or creates one (and is signed in with it), as that address, on this same page, which keeps
 * the token in memory meanwhile; signed in, they accept and land in the team. Accepting proves the
 * address, as a confirmation link would.
 */
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { api } from '../../api'
import { ErrorNote, formatDate } from '../../components'
import { useAction, useLoad } from '../../hooks'
import { LoginForm } from '../../pages/sign-in'
import { forgetLinkToken, linkToken } from '../link-token'
import type { InvitedRole, Team, TeamList } from '../types'
import { SignUpForm, type Credentials } from './accounts'

interface InvitationPreview {
  teamName: string
  email: string
  role: InvitedRole
  expiresAt: string
}

const NO_TOKEN = <p>This page needs the link from the invitation mail, as it was sent. Open the link again.</p>

/** Reads the invitation of the token, then shows `children` with it; a used or expired link shows the server's refusal instead. */
function WithInvitation({ token, children }: { token: string; children: (invitation: InvitationPreview) => ComponentChildren }) {
  const preview = useLoad(() => api<InvitationPreview>('POST', '/api/invitations/peek', { token }), [token])
  if (preview.error) return <ErrorNote error={preview.error} />
  if (!preview.data) return <p aria-busy="true">Reading the invitation…</p>
  const { teamName, role, email, expiresAt } = preview.data
  return (
    <>
      <p>
        You are invited to <strong>{teamName}</strong> as {role} ({email}). The invitation is good until {formatDate(expiresAt)}.
      </p>
      {children(preview.data)}
    </>
  )
}

export function InvitationSignedOut({ onSignedIn }: { onSignedIn: () => void }) {
  const [token] = useState(linkToken)
  return (
    <>
      <h1>Join a teamspace</h1>
      {token ? <WithInvitation token={token}>{(invitation) => <SignInOrUp invitation={invitation} onSignedIn={onSignedIn} />}</WithInvitation> : NO_TOKEN}
    </>
  )
}

/** One form at a time, after the invitee's choice: the sign-in and sign-up forms ask for the same fields. */
function SignInOrUp({ invitation, onSignedIn }: { invitation: InvitationPreview; onSignedIn: () => void }) {
  const { email, teamName } = invitation
  const [choice, setChoice] = useState<'existing' | 'new'>()
  const { route } = useLocation()
  // Signing in as a confirmed invited address joins the team at once (and uses the link): go there.
  const signedIn = async () => {
    const { teams } = await api<TeamList>('GET', '/api/teams')
    const joined = teams.find((team) => team.name === teamName)
    if (joined) {
      forgetLinkToken()
      route(`/teams/${joined.id}/overview`, true)
    }
    onSignedIn()
  }
  const signIn = async (credentials: Credentials) => {
    await api('POST', '/api/auth/login', { ...credentials })
    await signedIn()
  }
  return (
    <>
      <fieldset>
        <legend>Do you have a Lectern account for {email}?</legend>
        <label>
          <input type="radio" name="account" checked={choice === 'existing'} onChange={() => setChoice('existing')} />
          I have an account
        </label>
        <label>
          <input type="radio" name="account" checked={choice === 'new'} onChange={() => setChoice('new')} />
          Create an account
        </label>
      </fieldset>
      {choice === 'existing' ? (
        <>
          <h2>Sign in as {email}</h2>
          <LoginForm email={email} onDone={() => void signedIn()} />
        </>
      ) : null}
      {choice === 'new' ? (
        <>
          <h2>Create an account for {email}</h2>
          <SignUpForm email={email} onDone={signIn} />
        </>
      ) : null}
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
        <WithInvitation token={token}>
          {(invitation) => (
            <>
              <p>
                You are signed in as {email}.
                {invitation.email.toLowerCase() === email.toLowerCase() ? null : ` The invitation is for ${invitation.email}: sign out and sign in as that address to accept it.`}
              </p>
              <ErrorNote error={accept.error} />
              <button onClick={() => void accept.run(token)} aria-busy={accept.busy} disabled={accept.busy}>
                Accept the invitation
              </button>
            </>
          )}
        </WithInvitation>
      ) : (
        NO_TOKEN
      )}
    </section>
  )
}
