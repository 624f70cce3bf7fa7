/**
 * Settings: the embedding provider (probed by the server before it switches, then re-embedding
 * in the background), MCP (whether it needs a key, how to connect each editor, a live test),
 * the rate limits this server runs with, and on-premise single sign-on, who may reach each
 * library, GitOps and the offline license.
 */
import { useState } from 'preact/hooks'
import { api, query } from '../api'
import { ErrorNote, formatDate } from '../components'
import { useAction, useLoad } from '../hooks'
import type { JobRow } from '../types'
import { ConnectionsSection } from './settings-connections'
import { GitOpsSection } from './settings-gitops'
import { LibraryAccessSection } from './settings-library-access'
import { McpSection } from './settings-mcp'
import { SsoSection } from './settings-sso'

interface Embedding {
  provider: 'hash' | 'ollama' | 'openai'
  model?: string
  host?: string
  apiKey?: 'set'
  dimensions?: number
}

interface License {
  state: 'valid' | 'expired' | 'invalid' | 'none'
  reason?: string
  license?: { customer: string; edition: string; offline: boolean; issuedAt: string; expiresAt: string }
}

interface SettingsView {
  mode: 'onprem' | 'cloud'
  mcp: { requireKey: boolean }
  rateLimit: { anonymous: number; keyed: number; windowSeconds: number }
  license?: License
}

export function SettingsPage() {
  const settings = useLoad(() => api<SettingsView>('GET', '/api/settings'), [])
  return (
    <section>
      <h1>Settings</h1>
      <ErrorNote error={settings.error} />
      <EmbeddingSection />
      {settings.data ? <McpSection requireKey={settings.data.mcp.requireKey} onChange={settings.reload} /> : null}
      <ConnectionsSection onPremise={settings.data?.mode === 'onprem'} />
      {settings.data?.mode === 'onprem' ? <SsoSection /> : null}
      {settings.data?.mode === 'onprem' ? <LibraryAccessSection /> : null}
      {settings.data?.mode === 'onprem' ? <GitOpsSection /> : null}
      {settings.data ? (
        <section aria-labelledby="rate-limits">
          <h2 id="rate-limits">Rate limits</h2>
          <p>
            Requests per {settings.data.rateLimit.windowSeconds} seconds: {settings.data.rateLimit.anonymous || 'unlimited'} per address without a key or session,{' '}
            {settings.data.rateLimit.keyed || 'unlimited'} per key or signed-in user. They are start-up settings: change them with{' '}
            <code>--rate-limit-anonymous</code>, <code>--rate-limit-keyed</code>, <code>--rate-limit-window</code>, the environment or{' '}
            <code>lectern.yaml</code>, then restart (<code>lectern config get</code> shows where each value came from).
          </p>
        </section>
      ) : null}
      {settings.data?.license ? <LicenseSection license={settings.data.license} onChange={settings.reload} /> : null}
    </section>
  )
}

function EmbeddingSection() {
  const current = useLoad(() => api<Embedding>('GET', '/api/settings/embedding'), [])
  const reembedding = useLoad(
    async () => (await api<{ jobs: JobRow[] }>('GET', `/api/jobs${query({ state: 'queued,running', limit: 500 })}`)).jobs.filter((j) => j.kind === 'reembed'),
    [],
    3000,
  )
  const running = reembedding.data?.find((j) => j.state === 'running')
  const [provider, setProvider] = useState<Embedding['provider']>()
  const [message, setMessage] = useState<string>()
  const chosen = provider ?? current.data?.provider ?? 'hash'
  const save = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form)
    const text = (name: string) => String(data.get(name) ?? '').trim()
    const body: Record<string, unknown> = { provider: chosen }
    for (const field of ['model', 'host', 'apiKey']) if (text(field)) body[field] = text(field)
    if (text('dimensions')) body.dimensions = Number(text('dimensions'))
    const result = await api<{ message: string }>('PUT', '/api/settings/embedding', body)
    setMessage(result.message)
    current.reload()
    reembedding.reload()
  })
  return (
    <section aria-labelledby="embedding">
      <h2 id="embedding">Embedding provider</h2>
      {current.data ? (
        <p>
          Now: <strong>{current.data.provider}</strong>
          {current.data.model ? ` ${current.data.model}` : ''}
          {current.data.host ? ` at ${current.data.host}` : ''}
          {current.data.apiKey ? ' (an API key is set)' : ''}.
        </p>
      ) : null}
      {reembedding.data && reembedding.data.length > 0 ? (
        <p role="status">
          <progress aria-label="Re-embedding" /> Re-embedding: {reembedding.data.length} snippet set{reembedding.data.length === 1 ? '' : 's'} to go
          {running?.progress ? ` (${running.progress})` : ''}. Libraries answer
          from their previous vectors meanwhile. <a href="/queue">Parse Queue</a>
        </p>
      ) : null}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          setMessage(undefined)
          void save.run(event.currentTarget)
        }}
      >
        <label>
          Provider
          <select aria-label="Provider" value={chosen} onChange={(event) => setProvider(event.currentTarget.value as Embedding['provider'])}>
            <option value="hash">hash (built in, needs nothing)</option>
            <option value="ollama">Ollama</option>
            <option value="openai">OpenAI-compatible (vLLM, TEI, LocalAI…)</option>
          </select>
        </label>
        {chosen !== 'hash' ? (
          <>
            <label>
              Model
              <input name="model" required placeholder={chosen === 'ollama' ? 'nomic-embed-text' : 'text-embedding-3-small'} />
            </label>
            <label>
              Host
              <input name="host" type="url" required placeholder={chosen === 'ollama' ? 'http://127.0.0.1:11434' : 'http://127.0.0.1:8000/v1'} />
            </label>
            {chosen === 'openai' ? (
              <>
                <label>
                  API key (write-only: stored encrypted, never shown)
                  <input name="apiKey" type="password" autocomplete="off" />
                </label>
                <label>
                  Dimensions (optional)
                  <input name="dimensions" type="number" min={8} max={8192} />
                </label>
              </>
            ) : null}
          </>
        ) : null}
        <small>The server asks the provider for a test embedding first: a wrong host or model is refused and nothing changes.</small>
        <ErrorNote error={save.error ?? current.error} />
        {message ? <p role="status">{message}</p> : null}
        <button type="submit" aria-busy={save.busy} disabled={save.busy}>
          Switch and re-embed
        </button>
      </form>
    </section>
  )
}

function LicenseSection({ license, onChange }: { license: License; onChange: () => void }) {
  const install = useAction(async (form: HTMLFormElement) => {
    const file = new FormData(form).get('license') as File
    await api('PUT', '/api/license', { license: await file.text() })
    form.reset()
    onChange()
  })
  return (
    <section aria-labelledby="license">
      <h2 id="license">License</h2>
      {license.license ? (
        <p>
          <strong>{license.state}</strong>
          {license.reason ? ` (${license.reason})` : ''}: {license.license.customer}, {license.license.edition}
          {license.license.offline ? ', offline' : ''}, expires {formatDate(license.license.expiresAt)}.
        </p>
      ) : (
        <p>
          <strong>No license</strong>
          {license.reason ? `: ${license.reason}` : ''}. Importing library bundles needs an offline license.
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void install.run(event.currentTarget)
        }}
      >
        <fieldset role="group">
          <input name="license" type="file" required accept=".json,application/json" aria-label="License file" />
          <button type="submit" aria-busy={install.busy} disabled={install.busy}>
            Install license
          </button>
        </fieldset>
      </form>
      <ErrorNote error={install.error} />
    </section>
  )
}
