/**
 * The token of a mailed link (`/verify#token=...`, `/reset#token=...`, `/invitations#token=...`).
 * It travels in the fragment, which the browser never sends, and is posted to the API in a body.
 * Read once, it is taken out of the address bar and the history entry, so it is not left in a
 * bookmark, a shared URL or the back button; the page keeps it in memory for as long as it needs
 * it (signing in before accepting an invitation), never in storage.
 */
let held: { path: string; token: string } | undefined

export function linkToken(): string | undefined {
  const match = /^#token=([^&]+)$/.exec(location.hash)
  if (match) {
    held = { path: location.pathname, token: decodeURIComponent(match[1]!) }
    history.replaceState(history.state, '', location.pathname + location.search)
  }
  return held?.path === location.pathname ? held.token : undefined
}

/** Once the token is used (or refused for good), nothing keeps it. */
export function forgetLinkToken(): void {
  held = undefined
}

/** A link pasted into a tab already at its page changes the fragment only: `onToken` lets the page read it again. */
export function onLinkToken(onToken: () => void): () => void {
  const onHashChange = () => {
    if (location.hash.startsWith('#token=')) onToken()
  }
  window.addEventListener('hashchange', onHashChange)
  return () => window.removeEventListener('hashchange', onHashChange)
}
