/**
 * A cloud user's account. The password changes through a mailed reset link: the API's
 * `POST /api/auth/password` is the operator's (admin sessions), and a link to the mailbox is what
 * proves the owner of an account that signed itself up.
 */
import { useState } from 'preact/hooks'
import { api } from '../../api'
import { ErrorNote } from '../../components'
import { useAction } from '../../hooks'

export function TenantAccountPage({ email, emailVerified }: { email: string; emailVerified: boolean }) {
  const [sent, setSent] = useState<string>()
  const request = useAction(async () => {
    setSent((await api<{ message: string }>('POST', '/api/auth/reset-request', { email })).message)
  })
  return (
    <section class="narrow">
      <h1>Account</h1>
      <p>
        Signed in as {email}
        {emailVerified ? '' : ' (not confirmed yet)'}.
      </p>
      <h2>Change password</h2>
      <p>We mail you a link to set a new password. Setting it signs out every session of your account.</p>
      <button onClick={() => void request.run()} aria-busy={request.busy} disabled={request.busy}>
        Mail me a link
      </button>
      {sent ? <p role="status">{sent}</p> : null}
      <ErrorNote error={request.error} />
    </section>
  )
}
