/**
 * Adding a library from any source the API takes: each choice posts to the same endpoint a
 * script would (/api/v2/add/...), with the operator's session instead of a key.
 */
import { useState } from 'preact/hooks'
import { api, type Session } from '../api'
import { ErrorNote } from '../components'
import { useAction, useLoad } from '../hooks'

type Source = 'git' | 'openapi' | 'openapi-upload' | 'llmstxt' | 'website' | 'confluence' | 'notion'

interface StoredConnection {
  kind: string
  name: string
  baseUrl: string
}

const SOURCES: Array<{ value: Source; label: string }> = [
  { value: 'git', label: 'Git repository' },
  { value: 'openapi', label: 'OpenAPI spec (URL)' },
  { value: 'openapi-upload', label: 'OpenAPI spec (file)' },
  { value: 'llmstxt', label: 'llms.txt' },
  { value: 'website', label: 'Website' },
  { value: 'confluence', label: 'Confluence space (stored connection)' },
  { value: 'notion', label: 'Notion pages (stored connection)' },
]

/** Page IDs as typed: separated by commas, spaces or lines. */
const idsOf = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean)

/** The host decides the API's source kind; any other host is plain git. */
function gitKind(url: string): string {
  const host = (() => {
    try {
      return new URL(url).hostname
    } catch {
      return ''
    }
  })()
  if (host === 'github.com') return 'github'
  if (host === 'gitlab.com') return 'gitlab'
  if (host === 'bitbucket.org') return 'bitbucket'
  return 'git'
}

async function submit(source: Source, form: HTMLFormElement, connections: StoredConnection[]): Promise<{ libraryName: string; message?: string }> {
  const data = new FormData(form)
  const text = (name: string) => String(data.get(name) ?? '').trim()
  const connection = connections.find((c) => c.name === text('connection'))
  switch (source) {
    case 'git': {
      const url = text('url')
      const token = text('gitToken')
      return api('POST', `/api/v2/add/repo/${gitKind(url)}`, {
        docsRepoUrl: url,
        ...(token ? { gitToken: token } : {}),
        private: data.get('private') === 'on',
        skipVersionFiltering: data.get('skipVersionFiltering') === 'on',
        generateDocs: data.get('generateDocs') === 'on',
      })
    }
    case 'openapi':
      return api('POST', '/api/v2/add/openapi', { openApiUrl: text('url') })
    case 'openapi-upload': {
      const upload = new FormData()
      for (const field of ['libraryTitle', 'description']) if (text(field)) upload.set(field, text(field))
      upload.set('openapiFile', data.get('openapiFile') as File)
      return api('POST', '/api/v2/add/openapi-upload', upload)
    }
    case 'llmstxt':
      return api('POST', '/api/v2/add/llmstxt', { llmstxtUrl: text('url') })
    case 'website':
      return api('POST', '/api/v2/add/website', { websiteUrl: text('url'), ...(data.get('render') === 'on' ? { render: true } : {}) })
    // Context7's bodies name an OAuth workspace; Lectern matches them to the connection chosen here.
    case 'confluence':
      return api('POST', '/api/v2/add/confluence', {
        cloudId: connection?.name ?? '',
        siteUrl: connection?.baseUrl ?? '',
        spaceKey: text('spaceKey'),
        spaceName: text('spaceKey'),
        ...(text('pageIds') ? { pageIds: idsOf(text('pageIds')) } : {}),
        title: text('title'),
        description: text('description'),
      })
    case 'notion':
      return api('POST', '/api/v2/add/notion', {
        workspaceId: connection?.name ?? '',
        workspaceName: connection?.name ?? '',
        pageIds: idsOf(text('pageIds')),
        title: text('title'),
        description: text('description'),
      })
  }
}

export function AddLibrary({ mode, onAdded }: { mode: Session['mode']; onAdded: (libraryName: string) => void }) {
  const [source, setSource] = useState<Source>('git')
  const [added, setAdded] = useState<string>()
  const connections = useLoad(() => api<{ connections: StoredConnection[] }>('GET', '/api/connections'), [])
  const usable = (connections.data?.connections ?? []).filter((c) => c.kind === source)
  const add = useAction(async (form: HTMLFormElement) => {
    const result = await submit(source, form, usable)
    setAdded(result.libraryName)
    form.reset()
    onAdded(result.libraryName)
  })
  return (
    <details>
      <summary role="button" class="outline">
        Add a library
      </summary>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void add.run(event.currentTarget)
        }}
      >
        <label>
          Source
          <select aria-label="Source" value={source} onChange={(event) => setSource(event.currentTarget.value as Source)}>
            {SOURCES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        {source === 'confluence' || source === 'notion' ? (
          <WorkspaceFields source={source} connections={usable} />
        ) : source === 'openapi-upload' ? (
          <>
            <label>
              Spec file (JSON or YAML)
              <input name="openapiFile" type="file" required accept=".json,.yaml,.yml" />
            </label>
            <label>
              Title (optional: names the library)
              <input name="libraryTitle" />
            </label>
            <label>
              Description (optional)
              <input name="description" />
            </label>
          </>
        ) : (
          <label>
            URL
            <input name="url" type="url" required placeholder={source === 'git' ? 'https://github.com/owner/repo' : 'https://'} />
          </label>
        )}
        {source === 'git' ? (
          <>
            <label>
              Access token (private repositories; stored encrypted, never shown again)
              <input name="gitToken" type="password" autocomplete="off" />
            </label>
            <label>
              <input name="private" type="checkbox" role="switch" /> Private: {mode === 'cloud' ? 'only the operator sees it' : 'only callers with a key see it'}
            </label>
            <label>
              <input name="skipVersionFiltering" type="checkbox" role="switch" /> Keep docs of older versions (archived and versioned folders are left out by default)
            </label>
            <label>
              <input name="generateDocs" type="checkbox" role="switch" /> Also document the source code's exported symbols and their doc comments
            </label>
          </>
        ) : null}
        {source === 'website' ? (
          <label>
            <input name="render" type="checkbox" role="switch" /> Render pages in Chromium first (sites that need JavaScript)
          </label>
        ) : null}
        <ErrorNote error={add.error} />
        {added && !add.error ? (
          <p role="status">
            Queued <a href={`/libraries${added}`}>{added}</a>: follow it in the <a href="/queue">Parse Queue</a>.
          </p>
        ) : null}
        <button type="submit" aria-busy={add.busy} disabled={add.busy}>
          Add
        </button>
      </form>
    </details>
  )
}

function WorkspaceFields({ source, connections }: { source: 'confluence' | 'notion'; connections: StoredConnection[] }) {
  if (connections.length === 0) {
    return (
      <p class="muted">
        No {source === 'confluence' ? 'Confluence' : 'Notion'} connection is stored yet: add one under <a href="/settings">Settings</a>, Connections.
      </p>
    )
  }
  return (
    <>
      <label>
        Connection
        <select name="connection" aria-label="Connection" required>
          {connections.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name} ({c.baseUrl})
            </option>
          ))}
        </select>
      </label>
      {source === 'confluence' ? (
        <label>
          Space key
          <input name="spaceKey" required placeholder="DOCS" />
        </label>
      ) : null}
      <label>
        {source === 'confluence' ? 'Page IDs (optional: the whole space when empty)' : 'Page IDs'}
        <input name="pageIds" required={source === 'notion'} placeholder="comma-separated" />
      </label>
      <label>
        Title
        <input name="title" required />
      </label>
      <label>
        Description
        <input name="description" />
      </label>
    </>
  )
}
