/** MCP: whether it needs a key, the connection snippet for each editor with this server's URL, and a live test. */
import { useState } from 'preact/hooks'
import { api, ApiError } from '../api'
import { ErrorNote } from '../components'
import { useAction } from '../hooks'

const KEY_PLACEHOLDER = 'lct_your_key'

function snippets(url: string, key: string | undefined) {
  const auth = key ? { Authorization: `Bearer ${key}` } : undefined
  return [
    {
      client: 'Claude Code',
      where: 'in a terminal',
      text: `claude mcp add --transport http lectern ${url}${key ? ` --header "Authorization: Bearer ${key}"` : ''}`,
    },
    { client: 'Cursor', where: '~/.cursor/mcp.json', text: JSON.stringify({ mcpServers: { lectern: { url, ...(auth ? { headers: auth } : {}) } } }, null, 2) },
    { client: 'VS Code', where: '.vscode/mcp.json', text: JSON.stringify({ servers: { lectern: { type: 'http', url, ...(auth ? { headers: auth } : {}) } } }, null, 2) },
  ]
}

/** One JSON-RPC call to /mcp, as an MCP client makes it. */
async function mcpCall(method: string, params: object, key: string): Promise<unknown> {
  const response = await fetch('/mcp', {
    method: 'POST',
    credentials: 'omit',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json().catch(() => ({}))) as { result?: unknown; error?: { message?: string } }
  if (!response.ok || body.error) throw new ApiError(response.status, 'mcp_error', body.error?.message ?? `HTTP ${response.status}`)
  return body.result
}

export function McpSection({ requireKey, onChange }: { requireKey: boolean; onChange: () => void }) {
  const url = `${location.origin}/mcp`
  const [key, setKey] = useState('')
  const [tools, setTools] = useState<string[]>()
  // Shown switched at once; put back if the server refuses.
  const [required, setRequired] = useState(requireKey)
  const toggle = useAction(async (next: boolean) => {
    setRequired(next)
    try {
      await api('PUT', '/api/settings/mcp', { requireKey: next })
    } catch (err) {
      setRequired(!next)
      throw err
    }
    onChange()
  })
  const test = useAction(async () => {
    setTools(undefined)
    await mcpCall('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lectern-dashboard', version: '1' } }, key)
    const result = (await mcpCall('tools/list', {}, key)) as { tools: Array<{ name: string }> }
    setTools(result.tools.map((t) => t.name))
  })
  return (
    <section aria-labelledby="mcp">
      <h2 id="mcp">MCP</h2>
      <label>
        <input type="checkbox" role="switch" checked={required} disabled={toggle.busy} onChange={(event) => void toggle.run(event.currentTarget.checked)} /> MCP calls
        need an API key
      </label>
      <ErrorNote error={toggle.error} />
      <p>
        Connect an AI tool to <code>{url}</code>
        {required ? ' with an API key (create one on the API keys page)' : ''}:
      </p>
      {snippets(url, required ? key || KEY_PLACEHOLDER : undefined).map((s) => (
        <div key={s.client}>
          <strong>{s.client}</strong> <small class="muted">({s.where})</small>
          <pre data-testid={`mcp-${s.client}`}>{s.text}</pre>
        </div>
      ))}
      <fieldset role="group">
        <input type="password" value={key} onInput={(event) => setKey(event.currentTarget.value)} aria-label="API key for the test (optional)" placeholder="API key (optional)" autocomplete="off" />
        <button onClick={() => void test.run()} aria-busy={test.busy} disabled={test.busy}>
          Test MCP
        </button>
      </fieldset>
      <ErrorNote error={test.error} />
      {tools ? <p role="status">MCP answers: tools {tools.join(', ')}.</p> : null}
    </section>
  )
}
