import { useState } from 'preact/hooks'
import { api } from '../api'
import { ErrorNote } from '../components'
import { useAction } from '../hooks'
import { MIN_PASSWORD } from './sign-in'

export function AccountPage({ email }: { email: string }) {
  return (
    <section class="narrow">
      <h1>Account</h1>
      <p>Signed in as {email}.</p>
      <ChangePasswordForm />
    </section>
  )
}

/** POST /api/auth/password: any signed-in user's own password, the operator's and a cloud tenant's alike. */
export function ChangePasswordForm() {
  const [done, setDone] = useState(false)
  const change = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form)
    await api('POST', '/api/auth/password', { currentPassword: String(data.get('current')), newPassword: String(data.get('next')) })
    setDone(true)
    form.reset()
  })
  return (
    <>
      <h2>Change password</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          setDone(false)
          void change.run(event.currentTarget)
        }}
      >
        <label>
          Current password
          <input name="current" type="password" required autocomplete="current-password" />
        </label>
        <label>
          New password
          <input name="next" type="password" required minLength={MIN_PASSWORD} autocomplete="new-password" aria-describedby="next-help" />
        </label>
        <small id="next-help">At least {MIN_PASSWORD} characters. Your other sessions are signed out.</small>
        <ErrorNote error={change.error} />
        {done ? <p role="status">Password changed.</p> : null}
        <button type="submit" aria-busy={change.busy} disabled={change.busy}>
          Change password
        </button>
      </form>
    </>
  )
}
