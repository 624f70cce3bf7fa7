/**
 * The cloud's export: search public libraries, select up to 50, download them as one
 * `lectern-libraries.zip` for an airgapped install to import. The zip comes from
 * POST /api/libraries/export and is handed to the browser as a download.
 */
import { useState } from 'preact/hooks'
import { api, apiBlob, query } from '../api'
import { Empty, ErrorNote, formatNumber } from '../components'
import { useAction, useLoad } from '../hooks'
import type { ExportableList } from '../types'

const FILE_NAME = 'lectern-libraries.zip'

function saveAs(blob: Blob): void {
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = FILE_NAME
  link.click()
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}

export function ExportPicker() {
  const [q, setQ] = useState('')
  const [selected, setSelected] = useState<string[]>([])
  const [refused, setRefused] = useState<string>()
  const [saved, setSaved] = useState<number>()
  const list = useLoad(() => api<ExportableList>('GET', `/api/libraries/exportable${query({ q })}`), [q])
  const max = list.data?.max ?? 50
  const toggle = (id: string, on: boolean) => {
    setSaved(undefined)
    if (!on) {
      setRefused(undefined)
      setSelected((ids) => ids.filter((x) => x !== id))
    } else if (selected.length >= max) {
      setRefused(`A bundle holds at most ${max} libraries; ${id} was not added. Download these, then export the rest in another bundle.`)
    } else {
      setRefused(undefined)
      setSelected((ids) => [...ids, id])
    }
  }
  const clear = () => {
    setSelected([])
    setRefused(undefined)
  }
  const download = useAction(async () => {
    saveAs(await apiBlob('POST', '/api/libraries/export', { libraries: selected }))
    setSaved(selected.length)
  })
  return (
    <>
      <p>
        Select public libraries for an airgapped install; it imports the downloaded <code>{FILE_NAME}</code> on its Import page or with <code>lectern import</code>. At most {max}{' '}
        libraries per bundle; only ready (finalized) libraries can be exported.
      </p>
      <form role="search" onSubmit={(event) => event.preventDefault()}>
        <input type="search" aria-label="Search public libraries" placeholder="Search by ID or title, e.g. react" value={q} onInput={(event) => setQ(event.currentTarget.value)} />
      </form>
      <ErrorNote error={list.error} />
      {list.data && list.data.libraries.length === 0 ? <Empty>{q ? `No ready public library matches "${q}".` : 'No public library is ready yet: add one, then export it once it is ready.'}</Empty> : null}
      {list.data && list.data.libraries.length > 0 ? (
        <fieldset>
          <legend>
            Libraries{list.data.total > list.data.libraries.length ? ` (the first ${list.data.libraries.length} of ${formatNumber(list.data.total)} matches; search to narrow)` : ''}
          </legend>
          {list.data.libraries.map((library) => (
            <label key={library.id}>
              <input type="checkbox" checked={selected.includes(library.id)} onChange={(event) => toggle(library.id, event.currentTarget.checked)} />
              {library.id} <span class="muted">{library.title} · {formatNumber(library.totalSnippets)} snippets</span>
            </label>
          ))}
        </fieldset>
      ) : null}
      {refused ? (
        <p class="error-note" role="alert">
          {refused}
        </p>
      ) : null}
      <p role="status" aria-label="Selected libraries">
        {selected.length} of {max} selected{selected.length > 0 ? `: ${selected.join(', ')}` : ''}
      </p>
      <div class="actions">
        <button onClick={() => void download.run()} disabled={selected.length === 0 || download.busy} aria-busy={download.busy}>
          Download {FILE_NAME}
        </button>
        <button class="secondary outline" onClick={clear} disabled={selected.length === 0}>
          Clear the selection
        </button>
      </div>
      <ErrorNote error={download.error} />
      {saved !== undefined ? <p role="status">Downloaded {FILE_NAME} with {saved} {saved === 1 ? 'library' : 'libraries'}.</p> : null}
    </>
  )
}
