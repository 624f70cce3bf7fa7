/**
 * A teamspace's policies: which sources and libraries its API keys reach. Owners and admins edit
 * them; as the form changes, the server's preview (which saves nothing) gives the number of
 * public libraries the edited policy lets through, so the count is known before Save. Developers
 * see the same form read-only. The server's refusals are shown as it words them.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError } from '../../api'
import { ErrorNote, formatNumber } from '../../components'
import { useAction, useLoad } from '../../hooks'
import { can } from '../../../../src/tenancy/roles'
import { patchOf, policyOf, SOURCE_TYPE_LABELS, SOURCE_TYPES, type FilterMode, type Policy, type PolicyView } from '../policy'
import type { TenantPageProps } from '../types'

/** Waits for typing to pause before asking for a preview. */
const PREVIEW_DELAY_MS = 300

const MODES: Array<{ value: FilterMode; label: string }> = [
  { value: null, label: 'None: every library of an enabled source type' },
  { value: 'quality', label: 'Quality: thresholds, with blocked and excepted libraries' },
  { value: 'select', label: 'Select: only the libraries listed' },
]

const threshold = (text: string): number | null => (text.trim() === '' ? null : Number(text))

export function PoliciesPage({ team }: TenantPageProps) {
  const { id: teamId, role } = team
  const url = `/api/teams/${teamId}/policies`
  const loaded = useLoad(() => api<PolicyView>('GET', url), [teamId])
  const [saved, setSaved] = useState<PolicyView>()
  const [draft, setDraft] = useState<Policy>()
  const [preview, setPreview] = useState<{ count?: number; error?: ApiError }>({})
  const canEdit = can(role, 'manageLibraryAccess')

  useEffect(() => {
    if (!loaded.data) return
    setSaved(loaded.data)
    setDraft(policyOf(loaded.data))
  }, [loaded.data])

  const patch = saved && draft ? patchOf(saved, draft) : undefined
  const patchKey = JSON.stringify(patch ?? null)
  useEffect(() => {
    setPreview({})
    if (!canEdit || !patch) return
    let current = true
    const timer = setTimeout(() => {
      api<PolicyView>('POST', `${url}/preview`, patch)
        .then((view) => current && setPreview({ count: view.accessibleLibraryCount }))
        .catch((error: unknown) => current && setPreview({ error: error instanceof ApiError ? error : new ApiError(0, 'internal_error', String(error)) }))
    }, PREVIEW_DELAY_MS)
    return () => {
      current = false
      clearTimeout(timer)
    }
  }, [patchKey, canEdit])

  const save = useAction(async () => {
    if (!patch) return
    const view = await api<PolicyView>('PATCH', url, patch)
    setSaved(view)
    setDraft(policyOf(view))
  })

  if (!saved || !draft) {
    return (
      <section>
        <h1>Policies</h1>
        <ErrorNote error={loaded.error} />
        {loaded.error ? null : <p aria-busy="true">Loading…</p>}
      </section>
    )
  }

  const edit = (change: (next: Policy) => void) => {
    const next = structuredClone(draft)
    change(next)
    setDraft(next)
  }
  const quality = draft.libraryFilters.quality
  const count = patch ? preview.count : saved.accessibleLibraryCount

  return (
    <section>
      <h1>Policies</h1>
      <p>Which documentation the teamspace's API keys reach, in search, context and MCP. {canEdit ? '' : 'Only owners and admins may change them.'}</p>
      <p role="status" aria-label="Accessible libraries">
        {preview.error ? (
          'No count: the server refuses these changes (see below).'
        ) : count === undefined ? (
          <span aria-busy="true">Counting the libraries this policy lets through…</span>
        ) : (
          <>
            <strong data-testid="accessible-count">{formatNumber(count)}</strong> public {count === 1 ? 'library' : 'libraries'} accessible
            {patch ? ' with these changes (not saved yet)' : ''}
          </>
        )}
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void save.run()
        }}
      >
        <fieldset disabled={!canEdit}>
          <legend>Source types</legend>
          {SOURCE_TYPES.map((type) => (
            <label key={type}>
              <input
                type="checkbox"
                role="switch"
                checked={draft.sourceTypes[type].enabled}
                onChange={(event) => edit((next) => (next.sourceTypes[type].enabled = event.currentTarget.checked))}
              />
              {SOURCE_TYPE_LABELS[type]}
            </label>
          ))}
        </fieldset>
        <fieldset disabled={!canEdit}>
          <legend>Library filters</legend>
          {MODES.map((mode) => (
            <label key={String(mode.value)}>
              <input
                type="radio"
                name="mode"
                checked={draft.libraryFilters.mode === mode.value}
                onChange={() => edit((next) => (next.libraryFilters.mode = mode.value))}
              />
              {mode.label}
            </label>
          ))}
        </fieldset>
        {draft.libraryFilters.mode === 'quality' ? (
          <fieldset disabled={!canEdit}>
            <legend>Quality</legend>
            <label>
              <input type="checkbox" checked={quality.requireVerified} onChange={(event) => edit((next) => (next.libraryFilters.quality.requireVerified = event.currentTarget.checked))} />
              Verified libraries only
            </label>
            <div class="grid">
              <label>
                Minimum trust score (0–10)
                <input type="number" min={0} max={10} step={1} value={quality.minTrustScore ?? ''} onInput={(event) => edit((next) => (next.libraryFilters.quality.minTrustScore = threshold(event.currentTarget.value)))} />
              </label>
              <label>
                Indexed within (days)
                <input type="number" min={1} step={1} value={quality.maxAgeDays ?? ''} onInput={(event) => edit((next) => (next.libraryFilters.quality.maxAgeDays = threshold(event.currentTarget.value)))} />
              </label>
              <label>
                Minimum stars (repositories)
                <input type="number" min={0} step={1} value={quality.repoFilters.minStars ?? ''} onInput={(event) => edit((next) => (next.libraryFilters.quality.repoFilters.minStars = threshold(event.currentTarget.value)))} />
              </label>
            </div>
            <EntryList
              label="Blocked libraries"
              hint="a library path (/org/repo, or /org) or a domain"
              entries={quality.blockedLibraries}
              disabled={!canEdit}
              onChange={(entries) => edit((next) => (next.libraryFilters.quality.blockedLibraries = entries))}
            />
            <EntryList
              label="Excepted libraries"
              hint="always allowed, whatever the filters say"
              entries={quality.exceptedLibraries}
              disabled={!canEdit}
              onChange={(entries) => edit((next) => (next.libraryFilters.quality.exceptedLibraries = entries))}
            />
          </fieldset>
        ) : null}
        {draft.libraryFilters.mode === 'select' ? (
          <fieldset disabled={!canEdit}>
            <legend>Selected libraries</legend>
            <EntryList
              label="Allowed libraries"
              hint="a library path (/org/repo, or /org) or a domain"
              entries={draft.libraryFilters.select.allowedLibraries}
              disabled={!canEdit}
              onChange={(entries) => edit((next) => (next.libraryFilters.select.allowedLibraries = entries))}
            />
          </fieldset>
        ) : null}
        <ErrorNote error={save.error ?? preview.error} />
        {canEdit ? (
          <div role="group">
            <button type="submit" disabled={!patch || save.busy} aria-busy={save.busy}>
              Save
            </button>
            <button type="button" class="secondary outline" disabled={!patch || save.busy} onClick={() => setDraft(policyOf(saved))}>
              Discard changes
            </button>
          </div>
        ) : null}
      </form>
    </section>
  )
}

/** A list of entries with Add and Remove; the server checks and normalises each entry. */
function EntryList({ label, hint, entries, disabled, onChange }: { label: string; hint: string; entries: string[]; disabled: boolean; onChange: (entries: string[]) => void }) {
  const [text, setText] = useState('')
  const add = () => {
    const entry = text.trim()
    if (entry === '' || entries.includes(entry)) return
    onChange([...entries, entry])
    setText('')
  }
  return (
    <div>
      <p>
        <strong>{label}</strong> <small>({hint})</small>
      </p>
      <ul aria-label={label}>
        {entries.map((entry) => (
          <li key={entry}>
            <code>{entry}</code>{' '}
            {disabled ? null : (
              <button type="button" class="secondary outline small" aria-label={`Remove ${entry} from ${label.toLowerCase()}`} onClick={() => onChange(entries.filter((e) => e !== entry))}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      {disabled ? null : (
        <fieldset role="group">
          <input
            aria-label={`New entry for ${label.toLowerCase()}`}
            placeholder="/org/repo or example.com"
            value={text}
            onInput={(event) => setText(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault()
                add()
              }
            }}
          />
          <button type="button" aria-label={`Add to ${label.toLowerCase()}`} onClick={add} disabled={text.trim() === ''}>
            Add
          </button>
        </fieldset>
      )}
    </div>
  )
}
