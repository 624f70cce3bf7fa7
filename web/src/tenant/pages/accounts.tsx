/**
 * The account pages of the cloud that need no session: sign-up, and the pages the mailed links
 * open (confirm the address, reset the password). Tokens come from the link's fragment
 * (../link-token.ts) and go to the API in the body.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../../api'
import { ErrorNote } from '../../components'
import { useAction } from '../../hooks'
import { EmailField, formValues, MIN_PASSWORD } from '../../pages/sign-in'
import { forgetLinkToken, linkToken } from '../link-token'

export interface Credentials {
  email: string
  password: string
}

/** A new password typed twice; `onSubmit` runs only when both agree. */
function PasswordFields({ mismatch, label }: { mismatch: boolean; label: string }) {
  return (
    <>
      <label>
        {label}
        <input name="password" type="password" required minLength={MIN_PASSWORD} autocomplete="new-password" aria-describedby="password-help" />
      </label>
      <small id="password-help">At least {MIN_PASSWORD} characters.</small>
      <label>
        Password again
        <input name="confirm" type="password" required autocomplete="new-password" aria-invalid={mismatch ? 'true' : undefined} aria-describedby="confirm-help" />
      </label>
      {mismatch ? <small id="confirm-help">The two passwords differ.</small> : null}
    </>
  )
}

/** Posts the sign-up; `onDone` gets the credentials (the invitation page signs in with them, its address locked in `email`). */
export function SignUpForm({ onDone, email }: { onDone: (credentials: Credentials, message: string) => Promise<void> | void; email?: string }) {
  const [mismatch, setMismatch] = useState(false)
  const signUp = useAction(async (credentials: Credentials) => {
    const { message } = await api<{ message: string }>('POST', '/api/auth/signup', { ...credentials })
    await onDone(credentials, message)
  })
  const submit = (event: Event) => {
    event.preventDefault()
    const values = formValues(event)
    setMismatch(values.password !== values.confirm)
    if (values.password === values.confirm) void signUp.run({ email: values.email!, password: values.password! })
  }
  return (
    <form onSubmit={submit}>
      <EmailField locked={email} />
      <PasswordFields mismatch={mismatch} label="Password" />
      <ErrorNote error={signUp.error} />
      <button type="submit" aria-busy={signUp.busy} disabled={signUp.busy}>
        Create the account
      </button>
    </form>
  )
}

export function SignUpPage() {
  const [sent, setSent] = useState<string>()
  return (
    <>
      <h1>Create an account</h1>
      {sent ? (
        <p role="status">{sent}</p>
      ) : (
        <>
          <p>You get a personal space on the free plan. We mail you a link to confirm your address.</p>
          <SignUpForm onDone={(_credentials, message) => setSent(message)} />
        </>
      )}
      <p>
        Have an account? <a href="/">Sign in</a>
      </p>
    </>
  )
}

/** `/verify#token=...`: confirms the address as soon as it opens, signed in or not. */
export function VerifyPage({ signedIn, onVerified }: { signedIn: boolean; onVerified: () => void }) {
  const [token] = useState(linkToken)
  const [email, setEmail] = useState<string>()
  const verify = useAction(async (value: string) => {
    const answer = await api<{ email: string }>('POST', '/api/auth/verify', { token: value })
    forgetLinkToken()
    setEmail(answer.email)
    onVerified()
  })
  useEffect(() => {
    if (token) void verify.run(token)
  }, [token])
  return (
    <section class="narrow">
      <h1>Confirm your email</h1>
      {!token ? <p>This page needs the link from the mail, as it was sent. Open the link again.</p> : null}
      {verify.busy ? <p aria-busy="true">Confirming…</p> : null}
      {email ? <p role="status">{email} is confirmed.</p> : null}
      <ErrorNote error={verify.error} />
      {verify.error && signedIn ? <p>Send yourself a new link with the button at the top of the dashboard.</p> : null}
      {email || verify.error ? <a href="/">{signedIn ? 'Go to the dashboard' : 'Sign in'}</a> : null}
    </section>
  )
}

/** `/reset#token=...` sets a new password; `/reset` alone asks for a link ("Forgot password?"). */
export function ResetPage() {
  const [token] = useState(linkToken)
  return <section class="narrow">{token ? <NewPassword token={token} /> : <RequestReset />}</section>
}

function RequestReset() {
  const [sent, setSent] = useState<string>()
  const request = useAction(async (email: string) => {
    setSent((await api<{ message: string }>('POST', '/api/auth/reset-request', { email })).message)
  })
  return (
    <>
      <h1>Reset your password</h1>
      {sent ? (
        <p role="status">{sent}</p>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault()
            void request.run(formValues(event).email!)
          }}
        >
          <p>We mail a link to set a new password to the address of your account.</p>
          <label>
            Email
            <input name="email" type="email" required autocomplete="username" />
          </label>
          <ErrorNote error={request.error} />
          <button type="submit" aria-busy={request.busy} disabled={request.busy}>
            Mail me a link
          </button>
        </form>
      )}
      <p>
        <a href="/">Back to sign-in</a>
      </p>
    </>
  )
}

function NewPassword({ token }: { token: string }) {
  const [mismatch, setMismatch] = useState(false)
  const [done, setDone] = useState(false)
  // A refused password leaves the link usable: the token is kept until the reset succeeds.
  const reset = useAction(async (password: string) => {
    await api('POST', '/api/auth/reset', { token, password })
    forgetLinkToken()
    setDone(true)
  })
  const submit = (event: Event) => {
    event.preventDefault()
    const values = formValues(event)
    setMismatch(values.password !== values.confirm)
    if (values.password === values.confirm) void reset.run(values.password!)
  }
  if (done) {
    return (
      <>
        <h1>Password changed</h1>
        <p role="status">Your password is changed and every session of your account has ended.</p>
        <a href="/">Sign in with the new password</a>
      </>
    )
  }
  return (
    <>
      <h1>Set a new password</h1>
      <form onSubmit={submit}>
        <PasswordFields mismatch={mismatch} label="New password" />
        <ErrorNote error={reset.error} />
        <button type="submit" aria-busy={reset.busy} disabled={reset.busy}>
          Set the password
        </button>
      </form>
    </>
  )
}
