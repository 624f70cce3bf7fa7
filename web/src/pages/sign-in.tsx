import { useState } from 'preact/hooks'
import { api, type Session } from '../api'
import { ErrorNote } from '../components'
import { useAction } from '../hooks'

/** At least what `lectern admin create` and the server require. */
export const MIN_PASSWORD = 12

export const formValues = (event: Event) => Object.fromEntries(new FormData(event.currentTarget as HTMLFormElement)) as Record<string, string>

export function SetupPage({ onDone }: { onDone: () => void }) {
  const [mismatch, setMismatch] = useState(false)
  const setup = useAction(async (values: Record<string, string>) => {
    await api('POST', '/api/setup', { token: values.token!.trim(), email: values.email!, password: values.password! })
    onDone()
  })
  const submit = (event: Event) => {
    event.preventDefault()
    const values = formValues(event)
    setMismatch(values.password !== values.confirm)
    if (values.password === values.confirm) void setup.run(values)
  }
  return (
    <main class="container narrow">
      <h1>Welcome to Lectern</h1>
      <p>
        This install has no admin yet. Create the first one with the setup token that <code>lectern serve</code> printed at start; it is also in the
        file <code>setup-token</code> of the data directory.
      </p>
      <form onSubmit={submit}>
        <label>
          Setup token
          <input name="token" required autocomplete="off" spellcheck={false} />
        </label>
        <label>
          Email
          <input name="email" type="email" required autocomplete="username" />
        </label>
        <label>
          Password
          <input name="password" type="password" required minLength={MIN_PASSWORD} autocomplete="new-password" aria-describedby="password-help" />
        </label>
        <small id="password-help">At least {MIN_PASSWORD} characters.</small>
        <label>
          Password again
          <input name="confirm" type="password" required autocomplete="new-password" aria-invalid={mismatch ? 'true' : undefined} aria-describedby="confirm-help" />
        </label>
        {mismatch ? <small id="confirm-help">The two passwords differ.</small> : null}
        <ErrorNote error={setup.error} />
        <button type="submit" aria-busy={setup.busy} disabled={setup.busy}>
          Create the admin
        </button>
      </form>
    </main>
  )
}

/**
 * The sign-in page: the password form, and with single sign-on its button first. With password
 * sign-in off the form is folded away for the break-glass admins (sso.breakGlassAdmins). A failed
 * single sign-on comes back here with `?signInError=`, shown above the button.
 */
export function LoginPage({ onDone, sso }: { onDone: () => void; sso?: Session['sso'] }) {
  const ssoError = new URLSearchParams(window.location.search).get('signInError')
  const returnTo = window.location.pathname === '/' ? '/' : window.location.pathname
  return (
    <main class="container narrow">
      <h1>Sign in to Lectern</h1>
      {ssoError ? <p class="error-note" role="alert">Single sign-on failed: {ssoError}</p> : null}
      {sso ? (
        <p>
          <a role="button" href={`/api/auth/sso/login?returnTo=${encodeURIComponent(returnTo)}`}>
            Sign in with {sso.label}
          </a>
        </p>
      ) : null}
      {sso && !sso.passwordSignIn ? (
        <details>
          <summary>Break-glass admin sign-in</summary>
          <LoginForm onDone={onDone} />
        </details>
      ) : (
        <LoginForm onDone={onDone} />
      )}
    </main>
  )
}

/** The email field of a sign-in or sign-up form; `locked` is an address the page already knows (an invitation's). */
export function EmailField({ locked }: { locked?: string }) {
  return (
    <label>
      Email
      <input name="email" type="email" required autocomplete="username" value={locked} readOnly={locked !== undefined} />
    </label>
  )
}

export function LoginForm({ onDone, email }: { onDone: () => void; email?: string }) {
  const login = useAction(async (values: Record<string, string>) => {
    await api('POST', '/api/auth/login', { email: values.email!, password: values.password! })
    onDone()
  })
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault()
        void login.run(formValues(event))
      }}
    >
      <EmailField locked={email} />
      <label>
        Password
        <input name="password" type="password" required autocomplete="current-password" />
      </label>
      <ErrorNote error={login.error} />
      <button type="submit" aria-busy={login.busy} disabled={login.busy}>
        Sign in
      </button>
    </form>
  )
}
