/**
 * Stored connections: what Confluence, Notion and private git sources read through; tokens
 * write-only. The install's (Settings, at /api/connections) and a teamspace's (its Connections
 * page, at /api/teams/<ID>/connections, where developers only read) share this section. On
 * premise, a git connection's push webhook secret is made here too, and shown once.
 */
import { useState } from 'preact/hooks'
import { api } from '../api'
import { ActionsHeader, Empty, ErrorNote, formatDate } from '../components'
import { useAction, useLoad } from '../hooks'

export interface Connection {
  id: number
  kind: 'confluence' | 'notion' | 'git'
  name: string
  baseUrl: string
  email: string | null
  webhook?: boolean
  publicKey?: string | null
  createdAt: string
}

interface ConnectionsSectionProps {
  /** The API path of the connections. */
  base?: string
  /** Whether the user may add and remove them (else the list alone). */
  manage?: boolean
  /** What the connections serve, said above the list. */
  intro?: string
  /** On-premise: git connections over SSH, and their push webhook secrets. */
  onPremise?: boolean
}

export function ConnectionsSection({
  base = '/api/connections',
  manage = true,
  intro = 'Confluence sites, Notion workspaces and private git hosts that sources read through.',
  onPremise = false,
}: ConnectionsSectionProps) {
  const [ssh, setSsh] = useState(false)
  const [shown, setShown] = useState<{ name: string; secret: string }>()
  const list = useLoad(() => api<{ connections: Connection[] }>('GET', base), [base])
  const [kind, setKind] = useState<Connection['kind']>('git')
  const add = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form)
    const body: Record<string, string> = { kind }
    for (const field of ['name', 'token', 'site', 'email', 'host', 'apiUrl', 'knownHosts']) {
      const value = String(data.get(field) ?? '').trim()
      if (value) body[field] = value
    }
    await api('POST', base, body)
    form.reset()
    list.reload()
  })
  const remove = useAction(async (name: string) => {
    await api('DELETE', `${base}/${encodeURIComponent(name)}`)
    list.reload()
  })
  const newSecret = useAction(async (name: string) => {
    const change = await api<{ secret: string }>('PUT', `${base}/${encodeURIComponent(name)}/webhook`, {})
    setShown({ name, secret: change.secret })
    list.reload()
  })
  const removeSecret = useAction(async (name: string) => {
    await api('DELETE', `${base}/${encodeURIComponent(name)}/webhook`)
    setShown(undefined)
    list.reload()
  })
  return (
    <section aria-labelledby="connections">
      <h2 id="connections">Connections</h2>
      <p class="muted">{intro} Tokens are stored encrypted and never shown again.</p>
      {list.data && list.data.connections.length === 0 ? <Empty>No connections yet.</Empty> : null}
      {list.data && list.data.connections.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Where</th>
              <th scope="col">Added</th>
              {onPremise ? <th scope="col">Push webhook</th> : null}
              {manage ? <ActionsHeader /> : null}
            </tr>
          </thead>
          <tbody>
            {list.data.connections.map((c) => (
              <tr key={c.id}>
                <td>{c.name}</td>
                <td>{c.kind}</td>
                <td class="break">
                  {c.baseUrl}
                  {c.email ? ` (${c.email})` : ''}
                  {c.publicKey ? (
                    <div class="muted small">
                      Deploy key: <code>{c.publicKey}</code>
                    </div>
                  ) : null}
                </td>
                <td>{formatDate(c.createdAt)}</td>
                {onPremise ? <td>{c.kind !== 'git' ? '' : c.webhook ? 'secret set' : 'none'}</td> : null}
                {manage ? (
                  <td>
                    {onPremise && c.kind === 'git' ? (
                      <>
                        <button class="secondary outline small" onClick={() => void newSecret.run(c.name)} aria-label={`New webhook secret for ${c.name}`}>
                          New webhook secret
                        </button>{' '}
                        {c.webhook ? (
                          <button class="secondary outline small" onClick={() => void removeSecret.run(c.name)} aria-label={`Remove webhook secret of ${c.name}`}>
                            Remove webhook secret
                          </button>
                        ) : null}{' '}
                      </>
                    ) : null}
                    <button class="secondary outline small" onClick={() => void remove.run(c.name)} aria-label={`Remove connection ${c.name}`}>
                      Remove
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {shown ? (
        <article role="status" aria-label="New webhook secret">
          <p>
            Webhook secret of <strong>{shown.name}</strong>, shown this once. On the git host, add a webhook for push events to{' '}
            <code>{`${location.origin}/api/webhooks/`}github</code>, <code>gitlab</code> or <code>gitea</code> (content type <code>application/json</code>) with this
            secret:
          </p>
          <pre>
            <code>{shown.secret}</code>
          </pre>
        </article>
      ) : null}
      {onPremise ? <ErrorNote error={newSecret.error ?? removeSecret.error} /> : null}
      {manage ? null : <ErrorNote error={list.error} />}
      {manage ? (
        <form
          onSubmit={(event) => {
            event.preventDefault()
            void add.run(event.currentTarget)
          }}
        >
          <fieldset class="grid">
            <label>
              Kind
              <select aria-label="Connection kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as Connection['kind'])}>
                <option value="git">Git host</option>
                <option value="confluence">Confluence</option>
                <option value="notion">Notion</option>
              </select>
            </label>
            <label>
              Name
              <input name="name" required pattern="[A-Za-z0-9._\-]+" placeholder="e.g. gitlab" />
            </label>
          </fieldset>
          {kind === 'git' && onPremise ? (
            <label>
              Reads over
              <select aria-label="Git transport" value={ssh ? 'ssh' : 'https'} onChange={(event) => setSsh(event.currentTarget.value === 'ssh')}>
                <option value="https">HTTPS, with a token</option>
                <option value="ssh">SSH, with a deploy key</option>
              </select>
            </label>
          ) : null}
          {kind === 'git' ? (
            <label>
              Host
              <input name="host" required placeholder={ssh ? 'ssh://git.acme.internal:2222' : 'gitlab.example.com'} />
            </label>
          ) : null}
          {kind === 'git' && ssh ? (
            <label>
              Known hosts (the host keys to trust, as <code>ssh-keyscan</code> prints them; check their fingerprints)
              <textarea name="knownHosts" required rows={3} placeholder="[git.acme.internal]:2222 ssh-ed25519 AAAA..." />
            </label>
          ) : null}
          {kind === 'confluence' ? (
            <fieldset class="grid">
              <label>
                Site URL
                <input name="site" type="url" required placeholder="https://acme.atlassian.net" />
              </label>
              <label>
                Email (Confluence Cloud)
                <input name="email" type="email" />
              </label>
            </fieldset>
          ) : null}
          {kind === 'notion' ? (
            <label>
              API URL (optional, e.g. a proxy)
              <input name="apiUrl" type="url" placeholder="https://api.notion.com" />
            </label>
          ) : null}
          {kind === 'git' && ssh ? (
            <label>
              Deploy key (private, unencrypted; write-only)
              <textarea name="token" required rows={4} autocomplete="off" spellcheck={false} placeholder="-----BEGIN OPENSSH PRIVATE KEY-----" />
            </label>
          ) : (
            <label>
              Token (write-only)
              <input name="token" type="password" required autocomplete="off" />
            </label>
          )}
          <ErrorNote error={add.error ?? remove.error ?? list.error} />
          <button type="submit" aria-busy={add.busy} disabled={add.busy}>
            Add connection
          </button>
        </form>
      ) : null}
    </section>
  )
}
