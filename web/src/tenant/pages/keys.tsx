/**
 * A teamspace's API keys: each member creates keys of their own in the team (the key is shown
 * once, here, and never again); owners and admins see and revoke every member's, with whose it is.
 */
import { useState } from 'preact/hooks'
import { can } from '../../../../src/tenancy/roles'
import { api } from '../../api'
import { ActionsHeader, Empty, ErrorNote, formatDate, RevokeKeyStep } from '../../components'
import { useAction, useLoad } from '../../hooks'
import { inPageWords } from '../confirm-first'
import type { Member, TeamKey, TenantPageProps } from '../types'

export function TeamKeysPage({ team, emailVerified }: TenantPageProps) {
  const seesAll = can(team.role, 'manageMembers')
  const keys = useLoad(() => api<{ keys: TeamKey[] }>('GET', `/api/teams/${team.id}/keys`), [team.id])
  const members = useLoad(() => api<{ members: Member[] }>('GET', `/api/teams/${team.id}/members`), [team.id])
  const [created, setCreated] = useState<{ name: string; key: string }>()
  const [copied, setCopied] = useState(false)
  // Revoking breaks every tool that uses the key: it takes a second click.
  const [confirming, setConfirming] = useState<number>()
  const create = useAction(async (form: HTMLFormElement) => {
    const name = String(new FormData(form).get('name')).trim()
    setCreated(await api<{ name: string; key: string }>('POST', `/api/teams/${team.id}/keys`, { name }))
    setCopied(false)
    form.reset()
    keys.reload()
  })
  const [revoked, setRevoked] = useState<string>()
  const revoke = useAction(async (key: TeamKey) => {
    setRevoked(undefined)
    await api('DELETE', `/api/teams/${team.id}/keys/${key.id}`)
    setConfirming(undefined)
    setRevoked(`Revoked ${key.name}: requests with it are refused from now on.`)
    keys.reload()
  })
  const copy = async () => {
    if (!created) return
    await navigator.clipboard.writeText(created.key)
    setCopied(true)
  }
  const owner = (userId: number | null) => members.data?.members.find((m) => m.userId === userId)?.email ?? 'a former member'
  const live = keys.data?.keys.filter((k) => !k.revokedAt) ?? []
  return (
    <section>
      <h1>API keys of {team.personal ? 'your personal space' : team.name}</h1>
      <p>
        A key of this teamspace reaches its private libraries under its policies and plan. Callers send it as <code>Authorization: Bearer lct_…</code>; Lectern
        keeps only its hash. {seesAll ? 'You see every member’s keys.' : 'You see your own keys.'}
      </p>
      {!emailVerified ? <p class="muted">Confirm your email to create keys.</p> : null}
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
      <ErrorNote error={inPageWords(create.error, emailVerified) ?? revoke.error ?? keys.error} />
      <p role="status" aria-label="Revoked">
        {revoked}
      </p>
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
      {keys.data && live.length === 0 ? <Empty>No keys in this teamspace yet.</Empty> : null}
      {live.length > 0 ? (
        <table class="striped">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              {seesAll ? <th scope="col">Whose</th> : null}
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
                {seesAll ? <td>{owner(k.userId)}</td> : null}
                <td>{formatDate(k.createdAt)}</td>
                <td>{formatDate(k.lastUsedAt)}</td>
                <td>
                  <RevokeKeyStep
                    name={k.name}
                    asking={confirming === k.id}
                    onAsk={() => setConfirming(k.id)}
                    onKeep={() => setConfirming(undefined)}
                    onRevoke={() => void revoke.run(k)}
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
