import { useState } from 'preact/hooks'
import { api } from '../api'
import { ActionsHeader, Empty, ErrorNote, formatDate, RevokeKeyStep } from '../components'
import { useAction, useLoad } from '../hooks'
import type { KeyRow } from '../types'

export function KeysPage() {
  const keys = useLoad(() => api<{ keys: KeyRow[] }>('GET', '/api/keys'), [])
  const [created, setCreated] = useState<{ name: string; key: string }>()
  const [copied, setCopied] = useState(false)
  // Revoking breaks every tool that uses the key: it takes a second click.
  const [confirming, setConfirming] = useState<number>()
  const create = useAction(async (form: HTMLFormElement) => {
    const name = String(new FormData(form).get('name')).trim()
    const key = await api<{ name: string; key: string }>('POST', '/api/keys', { name })
    setCreated(key)
    setCopied(false)
    form.reset()
    keys.reload()
  })
  const revoke = useAction(async (id: number) => {
    await api('DELETE', `/api/keys/${id}`)
    setConfirming(undefined)
    keys.reload()
  })
  const copy = async () => {
    if (!created) return
    await navigator.clipboard.writeText(created.key)
    setCopied(true)
  }
  const live = keys.data?.keys.filter((k) => !k.revokedAt) ?? []
  return (
    <section>
      <h1>API keys</h1>
      <p>Callers send a key as <code>Authorization: Bearer lct_…</code>. Treat keys as passwords: Lectern keeps only their hash.</p>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void create.run(event.currentTarget)
        }}
      >
        <fieldset role="group">
          <input name="name" aria-label="Name of the new key" placeholder="what the key is for, e.g. cursor-laptop" required maxLength={100} />
          <button type="submit" aria-busy={create.busy} disabled={create.busy}>
            Create key
          </button>
        </fieldset>
      </form>
      <ErrorNote error={create.error ?? revoke.error ?? keys.error} />
      {created ? (
        <article role="status" aria-label="New key">
          <p>
            The key <strong>{created.name}</strong>, shown this once:
          </p>
          <fieldset role="group">
            <input readOnly value={created.key} aria-label="The new key" data-testid="new-key" class="mono" />
            <button onClick={() => void copy()}>{copied ? 'Copied' : 'Copy'}</button>
          </fieldset>
        </article>
      ) : null}
      {keys.data && live.length === 0 ? <Empty>No keys yet. Create one for each tool or person that calls this server.</Empty> : null}
      {live.length > 0 ? (
        <table class="striped">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <ActionsHeader />
            </tr>
          </thead>
          <tbody>
            {live.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <code>{k.preview}</code>
                </td>
                <td>{formatDate(k.createdAt)}</td>
                <td>{formatDate(k.lastUsedAt)}</td>
                <td>
                  <RevokeKeyStep
                    name={k.name}
                    asking={confirming === k.id}
                    onAsk={() => setConfirming(k.id)}
                    onKeep={() => setConfirming(undefined)}
                    onRevoke={() => void revoke.run(k.id)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  )
}
