/**
 * Library access (on-premise): every library with its access and who can reach it, the default
 * for libraries nobody configured, and an inline editor per library. Admins reach every library
 * whatever is set here; to anyone else a restricted library looks like no library at all.
 */
import { useState } from 'preact/hooks'
import { api } from '../api'
import { ActionsHeader, Badge, ErrorNote } from '../components'
import { useAction, useLoad } from '../hooks'

type Access = 'default' | 'everyone' | 'restricted'

interface Entry {
  libraryId: string
  title: string
  access: Access
  effective: 'everyone' | 'restricted'
  users: Array<{ userId: number; email: string }>
}

interface AccessView {
  restrictNewLibraries: boolean
  libraries: Entry[]
}

const whoCanAccess = (entry: Entry): string =>
  entry.effective === 'everyone' ? 'All members' : entry.users.length === 0 ? 'Admins only' : entry.users.map((u) => u.email).join(', ')

export function LibraryAccessSection() {
  const view = useLoad(() => api<AccessView>('GET', '/api/library-access'), [])
  const [filter, setFilter] = useState('')
  const [restrictedOnly, setRestrictedOnly] = useState(false)
  const [editing, setEditing] = useState<string>()
  // Shown switched at once; put back if the server refuses.
  const [restrictByDefault, setRestrictByDefault] = useState<boolean>()
  const toggle = useAction(async (next: boolean) => {
    setRestrictByDefault(next)
    try {
      await api('PUT', '/api/library-access/default', { restrictNewLibraries: next })
    } catch (err) {
      setRestrictByDefault(!next)
      throw err
    }
    view.reload()
  })
  const shown = (view.data?.libraries ?? []).filter(
    (l) => (!restrictedOnly || l.effective === 'restricted') && `${l.libraryId} ${l.title}`.toLowerCase().includes(filter.trim().toLowerCase()),
  )
  return (
    <section aria-labelledby="library-access">
      <h2 id="library-access">Library access</h2>
      <p class="muted">
        Restricted libraries are reached only by admins and the users granted them, with their sessions and their API keys; to everyone else they look like unknown
        libraries. Keys without an owner reach open libraries only.
      </p>
      <ErrorNote error={view.error} />
      {view.data ? (
        <label>
          <input
            type="checkbox"
            role="switch"
            checked={restrictByDefault ?? view.data.restrictNewLibraries}
            disabled={toggle.busy}
            onChange={(event) => void toggle.run(event.currentTarget.checked)}
          />{' '}
          Restrict libraries by default
        </label>
      ) : null}
      <ErrorNote error={toggle.error} />
      <fieldset role="group">
        <input type="search" value={filter} onInput={(event) => setFilter(event.currentTarget.value)} aria-label="Filter libraries by name" placeholder="Filter by name" />
      </fieldset>
      <label>
        <input type="checkbox" checked={restrictedOnly} onChange={(event) => setRestrictedOnly(event.currentTarget.checked)} /> Restricted only
      </label>
      <table>
        <thead>
          <tr>
            <th scope="col">Library</th>
            <th scope="col">Access</th>
            <th scope="col">Who can access</th>
            <ActionsHeader />
          </tr>
        </thead>
        <tbody>
          {shown.map((entry) =>
            editing === entry.libraryId ? (
              <AccessEditor
                key={entry.libraryId}
                entry={entry}
                onDone={() => {
                  setEditing(undefined)
                  view.reload()
                }}
              />
            ) : (
              <tr key={entry.libraryId}>
                <td>{entry.libraryId}</td>
                <td>
                  {entry.effective === 'restricted' ? 'Restricted' : 'Everyone'} {entry.access === 'default' ? <Badge title="follows the default">default</Badge> : null}
                </td>
                <td class="break">{whoCanAccess(entry)}</td>
                <td>
                  <button class="secondary outline small" onClick={() => setEditing(entry.libraryId)} aria-label={`Edit access to ${entry.libraryId}`}>
                    Edit
                  </button>
                </td>
              </tr>
            ),
          )}
        </tbody>
      </table>
    </section>
  )
}

function AccessEditor({ entry, onDone }: { entry: Entry; onDone: () => void }) {
  const [access, setAccess] = useState<Access>(entry.access)
  const [users, setUsers] = useState(entry.users.map((u) => u.email).join(', '))
  const save = useAction(async () => {
    const emails = users.split(/[\s,]+/).filter(Boolean)
    await api('PUT', `/api/libraries${entry.libraryId}/access`, { access, ...(access === 'restricted' ? { users: emails } : {}) })
    onDone()
  })
  return (
    <tr>
      <td>{entry.libraryId}</td>
      <td colSpan={3}>
        <form
          aria-label={`Access to ${entry.libraryId}`}
          onSubmit={(event) => {
            event.preventDefault()
            void save.run()
          }}
        >
          <fieldset>
            {(['everyone', 'restricted', 'default'] as const).map((option) => (
              <label key={option}>
                <input type="radio" name="access" value={option} checked={access === option} onChange={() => setAccess(option)} />{' '}
                {option === 'everyone' ? 'Everyone' : option === 'restricted' ? 'Restricted' : 'Workspace default'}
              </label>
            ))}
          </fieldset>
          {access === 'restricted' ? (
            <label>
              Users granted (emails)
              <input value={users} onInput={(event) => setUsers(event.currentTarget.value)} placeholder="alice@example.com, bob@example.com" />
            </label>
          ) : null}
          <ErrorNote error={save.error} />
          <button type="submit" aria-busy={save.busy} disabled={save.busy}>
            Save changes
          </button>{' '}
          <button type="button" class="secondary" onClick={onDone}>
            Cancel
          </button>
        </form>
      </td>
    </tr>
  )
}
