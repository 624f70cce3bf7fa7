/**
 * Library access (on-premise): the namespace rules, every library with its access and who can
 * reach it, the default for libraries nobody configured, and an inline editor for each. Admins
 * reach every library whatever is set here; to anyone else a restricted library looks like no
 * library at all.
 */
import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { api } from '../api'
import { ActionsHeader, Badge, ErrorNote } from '../components'
import { useAction, useLoad } from '../hooks'

type Access = 'default' | 'everyone' | 'restricted'

interface Grantees {
  access: Access
  effective: 'everyone' | 'restricted'
  users: Array<{ userId: number; email: string }>
  groups: string[]
}

interface Entry extends Grantees {
  libraryId: string
  title: string
  /** The namespace rule deciding it, when it has no rule of its own. */
  namespace: string | null
}

interface NamespaceEntry extends Grantees {
  namespace: string
  libraries: number
}

interface AccessView {
  restrictNewLibraries: boolean
  namespaces: NamespaceEntry[]
  libraries: Entry[]
}

const whoCanAccess = (entry: Grantees): string =>
  entry.effective === 'everyone'
    ? 'Anyone, with or without a key'
    : entry.users.length + entry.groups.length === 0
      ? 'Admins only'
      : [...entry.users.map((u) => u.email), ...entry.groups.map((group) => `group ${group}`)].join(', ')

const accessLabel = (entry: Grantees) => (entry.effective === 'restricted' ? 'Restricted' : 'Everyone')

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
  const done = () => {
    setEditing(undefined)
    view.reload()
  }
  const shown = (view.data?.libraries ?? []).filter(
    (l) => (!restrictedOnly || l.effective === 'restricted') && `${l.libraryId} ${l.title}`.toLowerCase().includes(filter.trim().toLowerCase()),
  )
  return (
    <section aria-labelledby="library-access">
      <h2 id="library-access">Library access</h2>
      <p class="muted">
        Restricted libraries are reached only by admins and the users and single sign-on groups granted them, with their sessions and their API keys; to everyone
        else they look like unknown libraries. Keys without an owner reach open libraries only.
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
      {view.data ? <NamespaceRules rules={view.data.namespaces} editing={editing} setEditing={setEditing} done={done} /> : null}
      <h3>Libraries</h3>
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
              <tr key={entry.libraryId}>
                <td>{entry.libraryId}</td>
                <td colSpan={3}>
                  <AccessEditor
                    target={entry.libraryId}
                    entry={entry}
                    defaultLabel={entry.namespace ? `No rule of its own (follow ${entry.namespace})` : 'Workspace default'}
                    save={(body) => api('PUT', `/api/libraries${entry.libraryId}/access`, body)}
                    onDone={done}
                  />
                </td>
              </tr>
            ) : (
              <tr key={entry.libraryId}>
                <td>{entry.libraryId}</td>
                <td>
                  {accessLabel(entry)}{' '}
                  {entry.access !== 'default' ? null : entry.namespace ? (
                    <Badge title="follows this namespace rule">{entry.namespace}</Badge>
                  ) : (
                    <Badge title="follows the default">default</Badge>
                  )}
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

/** The namespace rules: each governs the libraries under it that have no rule of their own. */
function NamespaceRules({ rules, editing, setEditing, done }: { rules: NamespaceEntry[]; editing?: string; setEditing: (target?: string) => void; done: () => void }) {
  const [namespace, setNamespace] = useState('')
  const save = (target: string) => (body: Record<string, unknown>) => api('PUT', '/api/library-access/namespaces', { namespace: target, ...body })
  return (
    <>
      <h3>Namespace rules</h3>
      <p class="muted">
        A rule on a namespace such as <code>/acme/*</code> governs every library under it that has no rule of its own; where namespaces nest, the longest one wins.
      </p>
      {rules.length > 0 ? (
        <table aria-label="Namespace rules">
          <thead>
            <tr>
              <th scope="col">Namespace</th>
              <th scope="col">Access</th>
              <th scope="col">Who can access</th>
              <th scope="col">Libraries</th>
              <ActionsHeader />
            </tr>
          </thead>
          <tbody>
            {rules.map((rule) =>
              editing === rule.namespace ? (
                <tr key={rule.namespace}>
                  <td>{rule.namespace}</td>
                  <td colSpan={4}>
                    <AccessEditor target={rule.namespace} entry={rule} defaultLabel="No rule (remove it)" save={save(rule.namespace)} onDone={done} />
                  </td>
                </tr>
              ) : (
                <tr key={rule.namespace}>
                  <td>{rule.namespace}</td>
                  <td>{accessLabel(rule)}</td>
                  <td class="break">{whoCanAccess(rule)}</td>
                  <td>{rule.libraries}</td>
                  <td>
                    <button class="secondary outline small" onClick={() => setEditing(rule.namespace)} aria-label={`Edit access to ${rule.namespace}`}>
                      Edit
                    </button>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      ) : null}
      {editing === '' ? (
        <AccessEditor
          target={namespace}
          label="New namespace rule"
          entry={{ access: 'restricted', effective: 'restricted', users: [], groups: [] }}
          save={save(namespace)}
          onDone={() => {
            setNamespace('')
            done()
          }}
        >
          <label>
            Namespace
            <input value={namespace} onInput={(event) => setNamespace(event.currentTarget.value)} placeholder="/acme/*" required />
          </label>
        </AccessEditor>
      ) : (
        <button class="secondary small" onClick={() => setEditing('')}>
          Add a namespace rule
        </button>
      )}
    </>
  )
}

/**
 * The access editor of a library or a namespace: everyone, restricted to users and groups, or no
 * rule of its own (`defaultLabel`; left out for a new namespace rule).
 */
function AccessEditor({
  target,
  label,
  entry,
  defaultLabel,
  save,
  onDone,
  children,
}: {
  target: string
  /** The form's accessible name, when not "Access to" its target. */
  label?: string
  entry: Grantees
  defaultLabel?: string
  save: (body: Record<string, unknown>) => Promise<unknown>
  onDone: () => void
  children?: ComponentChildren
}) {
  const [access, setAccess] = useState<Access>(entry.access)
  const [users, setUsers] = useState(entry.users.map((u) => u.email).join(', '))
  // Group names may hold spaces (a provider's display names): commas alone separate them.
  const [groups, setGroups] = useState(entry.groups.join(', '))
  const submit = useAction(async () => {
    const list = (text: string, separator: RegExp) => text.split(separator).map((item) => item.trim()).filter(Boolean)
    await save({ access, ...(access === 'restricted' ? { users: list(users, /[\s,]+/), groups: list(groups, /,/) } : {}) })
    onDone()
  })
  const options = defaultLabel === undefined ? (['everyone', 'restricted'] as const) : (['everyone', 'restricted', 'default'] as const)
  return (
    <form
      aria-label={label ?? `Access to ${target}`}
      onSubmit={(event) => {
        event.preventDefault()
        void submit.run()
      }}
    >
      {children}
      <fieldset>
        {options.map((option) => (
          <label key={option}>
            <input type="radio" name="access" value={option} checked={access === option} onChange={() => setAccess(option)} />{' '}
            {option === 'everyone' ? 'Everyone' : option === 'restricted' ? 'Restricted' : defaultLabel}
          </label>
        ))}
      </fieldset>
      {access === 'restricted' ? (
        <>
          <label>
            Users granted (emails)
            <input value={users} onInput={(event) => setUsers(event.currentTarget.value)} placeholder="alice@example.com, bob@example.com" />
          </label>
          <label>
            Groups granted (single sign-on groups, comma-separated)
            <input value={groups} onInput={(event) => setGroups(event.currentTarget.value)} placeholder="payments-team, platform" />
          </label>
        </>
      ) : null}
      <ErrorNote error={submit.error} />
      <button type="submit" aria-busy={submit.busy} disabled={submit.busy}>
        Save changes
      </button>{' '}
      <button type="button" class="secondary" onClick={onDone}>
        Cancel
      </button>
    </form>
  )
}
