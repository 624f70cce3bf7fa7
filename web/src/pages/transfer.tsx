/**
 * Import and export of libraries between installs. On-premise the page imports a
 * `lectern-libraries.zip` or a JSON payload through the same endpoint a script uses
 * (POST /api/import-libraries, which needs an offline license); in the cloud it exports public
 * libraries as that zip (transfer-export.tsx).
 */
import { useState } from 'preact/hooks'
import { api, ApiError, query } from '../api'
import { ErrorNote } from '../components'
import { useAction, useLoad } from '../hooks'
import type { ImportAnswer } from '../types'
import { ExportPicker } from './transfer-export'

export function TransferPage({ mode }: { mode: 'onprem' | 'cloud' }) {
  return (
    <section>
      <h1>Import / export</h1>
      {mode === 'cloud' ? <ExportPicker /> : <ImportForm />}
    </section>
  )
}

/** A bundle goes as the multipart file it is; a JSON payload as the JSON body the API takes. */
async function upload(file: File, force: boolean): Promise<ImportAnswer> {
  const path = `/api/import-libraries${query({ force: force ? 'true' : undefined })}`
  if (!file.name.toLowerCase().endsWith('.json')) {
    const form = new FormData()
    form.set('bundleFile', file)
    return api<ImportAnswer>('POST', path, form)
  }
  let payload: Record<string, unknown>
  try {
    payload = JSON.parse(await file.text()) as Record<string, unknown>
  } catch {
    throw new ApiError(400, 'validation_error', `${file.name} is not JSON. Choose the lectern-libraries.zip or the .json payload that \`lectern export\` wrote.`)
  }
  return api<ImportAnswer>('POST', path, payload)
}

function ImportForm() {
  const [answer, setAnswer] = useState<ImportAnswer>()
  // Said before an upload, not only after: import needs a valid offline license.
  const license = useLoad(() => api<{ license?: { state: string; reason?: string; license?: { offline: boolean } } }>('GET', '/api/settings'), [])
  const importing = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form)
    setAnswer(undefined)
    try {
      setAnswer(await upload(data.get('bundle') as File, data.get('force') === 'on'))
    } finally {
      license.reload()
    }
  })
  const status = license.data?.license
  const unlicensed = status !== undefined && (status.state !== 'valid' || status.license?.offline !== true)
  const licenseMissing = unlicensed || (importing.error?.status === 403 && /license/i.test(importing.error.message))
  return (
    <>
      <p>
        Import libraries exported from Lectern Cloud: the <code>lectern-libraries.zip</code> of the cloud dashboard or <code>lectern export</code>, or the JSON payload of{' '}
        <code>lectern export --json</code> (100 MB at most). Each library is queued and re-embedded here; it answers once its job in the <a href="/queue">Parse Queue</a> is done.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void importing.run(event.currentTarget)
        }}
      >
        <label>
          Bundle or JSON payload
          <input name="bundle" type="file" accept=".zip,.json,application/zip,application/json" required />
        </label>
        <label>
          <input name="force" type="checkbox" role="switch" /> Overwrite existing libraries (otherwise a library this install already has is skipped)
        </label>
        <button type="submit" aria-busy={importing.busy} disabled={importing.busy}>
          Import
        </button>
      </form>
      <ErrorNote error={importing.error} />
      {licenseMissing ? (
        <article aria-label="How to install a license">
          <p>
            Import needs a valid offline license on this server{status?.reason ? ` (now: ${status.reason})` : ''}. Install the license file you were given under{' '}
            <a href="/settings">Settings</a>, License, or on the server:
          </p>
          <pre>
            <code>lectern license install ./license.json --data-dir &lt;data dir&gt;</code>
          </pre>
          <p>
            The server must know the license public key (<code>LECTERN_LICENSE_PUBLIC_KEY</code>, or <code>lectern config set license.publicKeyFile &lt;pem&gt;</code>).{' '}
            <code>lectern license show</code> says what is installed. Then import again; no restart is needed.
          </p>
        </article>
      ) : null}
      {answer ? <ImportResult answer={answer} /> : null}
    </>
  )
}

function ImportResult({ answer }: { answer: ImportAnswer }) {
  return (
    <article role="status" aria-label="Import result">
      <p>{answer.message}</p>
      {answer.queued.length > 0 ? (
        <>
          <h2>Queued ({answer.queued.length})</h2>
          <ul aria-label="Queued libraries">
            {answer.queued.map((id) => (
              <li key={id}>
                <a href={`/libraries${id}`}>{id}</a>
              </li>
            ))}
          </ul>
          <p>
            Follow their jobs in the <a href="/queue">Parse Queue</a>.
          </p>
        </>
      ) : null}
      {answer.skipped.length > 0 ? (
        <>
          <h2>Skipped ({answer.skipped.length})</h2>
          <ul aria-label="Skipped libraries">
            {answer.skipped.map((s) => (
              <li key={s.project}>
                <code>{s.project}</code>: {s.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </article>
  )
}
