/**
 * A cloud user's account: the password changes in place with the current one, as the operator's
 * does (POST /api/auth/password, any session); the mailed reset link is for a forgotten password,
 * from the sign-in page.
 */
import { ChangePasswordForm } from '../../pages/account'

export function TenantAccountPage({ email, emailVerified }: { email: string; emailVerified: boolean }) {
  return (
    <section class="narrow">
      <h1>Account</h1>
      <p>
        Signed in as {email}
        {emailVerified ? '' : ' (not confirmed yet)'}.
      </p>
      <ChangePasswordForm />
    </section>
  )
}
