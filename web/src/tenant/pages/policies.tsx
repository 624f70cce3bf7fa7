/**
 * A teamspace's policies: which sources and libraries its API keys reach. Owners and admins edit
 * them; as the form changes, the server's preview (which saves nothing) gives the number of
 * public libraries the edited policy lets through, so the count is known before Save. Developers
 * see the same form read-only. The page checks each field first (./policy-fields.ts), marks the
 * bad ones and keeps Save off until they are fixed; a refusal of the server that names a field
 * shows next to that field.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, ApiError } from '../../api'
import { ErrorNote, formatNumber } from '../../components'
import { useAction, useLoad } from '../../hooks'
import { can } from '../../../../src/tenancy/roles'
import { patchOf, policyOf, SOURCE_TYPE_LABELS, SOURCE_TYPES, type FilterMode, type Policy, type PolicyView } from '../policy'
import { entryProblem, fieldErrors, fieldOf, FIELD_LABELS, type PolicyField } from '../policy-fields'
import type { TenantPageProps } from '../types'

/** Waits for typing to pause before asking for a preview. */
const PREVIEW_DELAY_MS = 300

const MODES: Array<{ value: FilterMode; label: string }> = [
  { value: null, label: 'None: every library of an enabled source type' },
  { value: 'quality', label: 'Quality: thresholds, with blocked and excepted libraries' },
  { value: 'select', label: 'Select: only the libraries listed' },
]

/** A number field's value: empty is no threshold; what the browser cannot read as a number is NaN, which the checks refuse. */
const threshold = (input: HTMLInputElement): number | null => (input.validity.badInput ? NaN : input.value.trim() === '' ? null : Number(input.value))

export function PoliciesPage({ team }: TenantPageProps) {
  const { id: teamId, role } = team
  const url = `/api/teams/${teamId}/policies`
  const loaded = useLoad(() => api<PolicyView>('GET', url), [teamId])
  const [saved, setSaved] = useState<PolicyView>()
  const [draft, setDraft] = useState<Policy>()
  const [preview, setPreview] = useState<{ count?: number; error?: ApiError }>({})
  const [justSaved, setJustSaved] = useState(false)
  const canEdit = can(role, 'manageLibraryAccess')

  useEffect(() => {
    if (!loaded.data) return
    setSaved(loaded.data)
    setDraft(policyOf(loaded.data))
  }, [loaded.data])

  const patch = saved && draft ? patchOf(saved, draft) : undefined
  const patchKey = JSON.stringify(patch ?? null)
  const invalid = draft ? fieldErrors(draft) : {}
  const invalidKey = Object.keys(invalid).join()
  useEffect(() => {
    setPreview({})
    if (!canEdit || !patch || invalidKey !== '') return
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
  }, [patchKey, invalidKey, canEdit])

  const save = useAction(async () => {
    if (!patch || invalidKey !== '') return
    const view = await api<PolicyView>('PATCH', url, patch)
    setSaved(view)
    setDraft(policyOf(view))
    setJustSaved(true)
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
    setJustSaved(false)
  }
  // The server's refusal, next to the field it names; one naming none shows below the form.
  const refusal = save.error ?? preview.error
  const refusedField = refusal ? fieldOf(refusal.message) : undefined
  const problem = (field: PolicyField): string | undefined => invalid[field] ?? (refusedField === field ? refusal?.message : undefined)
  const numberField = (field: 'minTrustScore' | 'maxAgeDays' | 'minStars', value: number | null, bounds: { min: number; max?: number }, set: (next: Policy, value: number | null) => void) => {
    const message = problem(field)
    return (
      <div>
        <label>
          {FIELD_LABELS[field]}
          <input
            type="number"
            min={bounds.min}
            max={bounds.max}
            step={1}
            value={value === null || Number.isNaN(value) ? '' : value}
            aria-invalid={message ? 'true' : undefined}
            aria-describedby={message ? `${field}-problem` : undefined}
            onInput={(event) => {
              const read = threshold(event.currentTarget)
              edit((next) => set(next, read))
            }}
          />
        </label>
        {message ? (
          <small id={`${field}-problem`} class="error-text">
            {message}
          </small>
        ) : null}
      </div>
    )
  }
  const quality = draft.libraryFilters.quality
  const count = patch ? preview.count : saved.accessibleLibraryCount

  return (
    <section>
      <h1>Policies</h1>
      <p>Which documentation the teamspace's API keys reach, in search, context and MCP. {canEdit ? '' : 'Only owners and admins may change them.'}</p>
      <p role="status" aria-label="Accessible libraries">
        {invalidKey !== '' ? (
          'No count until the marked fields are fixed.'
        ) : preview.error ? (
          `No count: the server refuses these changes (${refusedField ? 'see the marked field' : 'see below'}).`
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
              <input
                type="checkbox"
                checked={quality.requireVerified}
                aria-describedby="verified-note"
                onChange={(event) => edit((next) => (next.libraryFilters.quality.requireVerified = event.currentTarget.checked))}
              />
              Verified libraries only
            </label>
            <small id="verified-note" class="muted">
              This install verifies no library, so with this on only the excepted libraries pass.
            </small>
            <div class="grid">
              {numberField('minTrustScore', quality.minTrustScore, { min: 0, max: 10 }, (next, value) => (next.libraryFilters.quality.minTrustScore = value))}
              {numberField('maxAgeDays', quality.maxAgeDays, { min: 1 }, (next, value) => (next.libraryFilters.quality.maxAgeDays = value))}
              {numberField('minStars', quality.repoFilters.minStars, { min: 0 }, (next, value) => (next.libraryFilters.quality.repoFilters.minStars = value))}
            </div>
            <EntryList
              field="blockedLibraries"
              hint="a library path (/org/repo, or /org) or a domain"
              entries={quality.blockedLibraries}
              disabled={!canEdit}
              problem={problem('blockedLibraries')}
              onChange={(entries) => edit((next) => (next.libraryFilters.quality.blockedLibraries = entries))}
            />
            <EntryList
              field="exceptedLibraries"
              hint="always allowed, whatever the filters say"
              entries={quality.exceptedLibraries}
              disabled={!canEdit}
              problem={problem('exceptedLibraries')}
              onChange={(entries) => edit((next) => (next.libraryFilters.quality.exceptedLibraries = entries))}
            />
          </fieldset>
        ) : null}
        {draft.libraryFilters.mode === 'select' ? (
          <fieldset disabled={!canEdit}>
            <legend>Selected libraries</legend>
            <EntryList
              field="allowedLibraries"
              hint="a library path (/org/repo, or /org) or a domain"
              entries={draft.libraryFilters.select.allowedLibraries}
              disabled={!canEdit}
              problem={problem('allowedLibraries')}
              onChange={(entries) => edit((next) => (next.libraryFilters.select.allowedLibraries = entries))}
            />
          </fieldset>
        ) : null}
        <ErrorNote error={refusedField ? undefined : refusal} />
        {invalidKey !== '' ? (
          <p class="error-text">
            Save is off until these are fixed: {(Object.keys(invalid) as PolicyField[]).map((field) => FIELD_LABELS[field]).join(', ')}.
          </p>
        ) : null}
        <p role="status" aria-label="Saved">
          {justSaved ? 'Saved.' : null}
        </p>
        {canEdit ? (
          <div role="group">
            <button type="submit" disabled={!patch || invalidKey !== '' || save.busy} aria-busy={save.busy}>
              Save
            </button>
            <button type="button" class="secondary outline" disabled={!patch || save.busy} onClick={() => {
                setDraft(policyOf(saved))
                setJustSaved(false)
              }}
            >
              Discard changes
            </button>
          </div>
        ) : null}
      </form>
    </section>
  )
}

/**
 * A list of entries with Add and Remove. Add refuses an entry that is no library path or domain,
 * or is listed already, with the reason, and adds it as the server stores it (lower case).
 */
function EntryList({ field, hint, entries, disabled, problem, onChange }: { field: PolicyField; hint: string; entries: string[]; disabled: boolean; problem?: string; onChange: (entries: string[]) => void }) {
  const label = FIELD_LABELS[field]
  const [text, setText] = useState('')
  const [refused, setRefused] = useState<string>()
  const add = () => {
    const reason = entryProblem(text, entries)
    setRefused(reason)
    if (reason !== undefined) return
    onChange([...entries, text.trim().toLowerCase()])
    setText('')
  }
  const message = refused ?? problem
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
        <>
          <fieldset role="group">
            <input
              aria-label={`New entry for ${label.toLowerCase()}`}
              placeholder="/org/repo or example.com"
              value={text}
              aria-invalid={message ? 'true' : undefined}
              aria-describedby={message ? `${field}-problem` : undefined}
              onInput={(event) => {
                setText(event.currentTarget.value)
                setRefused(undefined)
              }}
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
          {message ? (
            <small id={`${field}-problem`} class="error-text">
              {message}
            </small>
          ) : null}
        </>
      )}
    </div>
  )
}
