import { api } from './api'

export function SignOut({ onDone }: { onDone: () => void }) {
  const signOut = async () => {
    await api('POST', '/api/auth/logout').catch(() => undefined)
    history.replaceState(null, '', '/')
    onDone()
  }
  return (
    <button class="secondary outline small" onClick={signOut}>
      Sign out
    </button>
  )
}
