/**
 * "Add a private source" on a teamspace's Libraries page: a repository of a git connection's host,
 * a Confluence space or Notion pages, read through one of the teamspace's connections and added as
 * its private library (POST /api/teams/<ID>/libraries). Shown to owners and admins on a plan with
 * private sources.
 */
import { useState } from 'preact/hooks'
import { api } from '../../api'
import { ErrorNote } from '../../components'
import { useAction, useLoad } from '../../hooks'
import type { Connection } from '../../pages/settings-connections'

export function AddSourceForm({ teamId, onAdded }: { teamId: number; onAdded: () => void }) {
  const connections = useLoad(() => api<{ connections: Connection[] }>('GET', `/api/teams/${teamId}/connections`), [teamId])
  const usable = connections.data?.connections ?? []
  const [chosen, setChosen] = useState<string>()
  const [added, setAdded] = useState<string>()
  const connection = usable.find((c) => c.name === chosen) ?? usable[0]
  const add = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form)
    const text = (field: string) => String(data.get(field) ?? '').trim()
    const pageIds = text('pageIds').split(/[\s,]+/).filter(Boolean)
    const body: Record<string, unknown> = { connection: connection!.name }
    if (text('repoUrl')) body.repoUrl = text('repoUrl')
    if (text('spaceKey')) body.spaceKey = text('spaceKey')
    if (pageIds.length > 0) body.pageIds = pageIds
    for (const field of ['title', 'description']) if (text(field)) body[field] = text(field)
    const result = await api<{ libraryName: string; message: string }>('POST', `/api/teams/${teamId}/libraries`, body)
    setAdded(result.message)
    form.reset()
    onAdded()
  })
  if (!connection) {
    return connections.data ? <p class="muted">To add a private repository, a Confluence space or Notion pages, first add a connection to its host under Connections.</p> : null
  }
  return (
    <details>
      <summary>Add a private source</summary>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void add.run(event.currentTarget)
        }}
      >
        <fieldset class="grid">
          <label>
            Connection
            <select aria-label="Connection to read through" value={connection.name} onChange={(event) => setChosen(event.currentTarget.value)}>
              {usable.map((c) => (
                <option key={c.id} value={c.name}>
                  {c.name} ({c.kind})
                </option>
              ))}
            </select>
          </label>
          {connection.kind === 'confluence' ? (
            <label>
              Space key
              <input name="spaceKey" required placeholder="e.g. OPS" />
            </label>
          ) : null}
        </fieldset>
        {connection.kind === 'git' ? (
          <label>
            Repository URL
            <input name="repoUrl" type="url" required placeholder={`${connection.baseUrl}/<owner>/<repository>`} />
            <small>Cloned with the connection's token. A host this server does not resolve is reached only once the operator names it in fetch.allow.</small>
          </label>
        ) : (
          <>
            <label>
              {connection.kind === 'notion' ? 'Page IDs' : 'Page IDs (optional: the whole space without them)'}
              <input name="pageIds" required={connection.kind === 'notion'} placeholder="separated by spaces or commas" />
            </label>
            <fieldset class="grid">
              <label>
                Title
                <input name="title" required={connection.kind === 'notion'} maxLength={200} />
              </label>
              <label>
                Description
                <input name="description" maxLength={2000} />
              </label>
            </fieldset>
          </>
        )}
        <ErrorNote error={add.error ?? connections.error} />
        {added ? <p role="status">{added}</p> : null}
        <button type="submit" aria-busy={add.busy} disabled={add.busy}>
          Add source
        </button>
      </form>
    </details>
  )
}
