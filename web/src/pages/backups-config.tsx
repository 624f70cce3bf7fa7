/**
 * The backup settings: destination (a directory, or S3 whose secret is write-only), schedule with
 * its next runs, and retention. "Test connection" probes the destination as entered, before it is
 * saved; a secret left empty there means the stored one.
 */
import { useEffect, useState } from 'preact/hooks'
import { api, query } from '../api'
import { ErrorNote, formatDate } from '../components'
import { useAction, useLoad } from '../hooks'
import type { BackupConfigView, ScheduleNext } from '../types'

interface Form {
  type: 'dir' | 's3'
  path: string
  bucket: string
  region: string
  accessKeyId: string
  secret: string
  removeSecret: boolean
  secretSet: boolean
  endpoint: string
  forcePathStyle: boolean
  prefix: string
  /** '' is off, a preset name, or 'custom' for `cron`. */
  schedule: string
  cron: string
  timeZone: string
  keepAll: boolean
  keep: number
}

const CUSTOM = 'custom'
const OFF = ''

function toForm(view: BackupConfigView, presets: string[]): Form {
  const d = view.destination
  const s3 = d.type === 's3' ? d : undefined
  const expression = view.schedule?.expression ?? ''
  return {
    type: d.type,
    path: d.type === 'dir' ? d.path : '',
    bucket: s3?.bucket ?? '',
    region: s3?.region ?? 'us-east-1',
    accessKeyId: s3?.accessKeyId ?? '',
    secret: '',
    removeSecret: false,
    secretSet: s3?.secretSet ?? false,
    endpoint: s3?.endpoint ?? '',
    forcePathStyle: s3?.forcePathStyle ?? false,
    prefix: s3?.prefix ?? '',
    schedule: expression === '' ? OFF : presets.includes(expression) ? expression : CUSTOM,
    cron: presets.includes(expression) ? '' : expression,
    timeZone: view.schedule?.timeZone ?? 'UTC',
    keepAll: view.retention.keep === 'all',
    keep: view.retention.keep === 'all' ? 7 : view.retention.keep,
  }
}

function destinationBody(form: Form): Record<string, unknown> {
  if (form.type === 'dir') return { type: 'dir', path: form.path.trim() || null }
  return {
    type: 's3',
    bucket: form.bucket.trim(),
    region: form.region.trim(),
    accessKeyId: form.accessKeyId.trim(),
    // Left out: the stored secret stays (and is the one a test uses); '' removes it.
    ...(form.removeSecret ? { secretAccessKey: '' } : form.secret ? { secretAccessKey: form.secret } : {}),
    endpoint: form.endpoint.trim(),
    forcePathStyle: form.forcePathStyle,
    prefix: form.prefix.trim(),
  }
}

const scheduleExpression = (form: Form): string => (form.schedule === CUSTOM ? form.cron.trim() : form.schedule)

/** `onSaved`: the destination may have changed, and with it the list of archives. */
export function BackupConfigForm({ onSaved }: { onSaved: () => void }) {
  const config = useLoad(() => api<BackupConfigView>('GET', '/api/backup/config'), [])
  // The presets come with any schedule's next runs: the server's list, not a copy kept here.
  const presets = useLoad(() => api<ScheduleNext>('GET', `/api/backup/schedule/next${query({ expression: 'daily' })}`), [])
  const [form, setForm] = useState<Form>()
  useEffect(() => {
    if (config.data && presets.data && !form) setForm(toForm(config.data, Object.keys(presets.data.presets)))
  }, [config.data, presets.data])
  const [tested, setTested] = useState(false)
  const [saved, setSaved] = useState(false)
  const test = useAction(async (current: Form) => {
    setTested(false)
    setSaved(false)
    await api('POST', '/api/backup/config/test', destinationBody(current))
    setTested(true)
  })
  const save = useAction(async (current: Form) => {
    setSaved(false)
    setTested(false)
    const expression = scheduleExpression(current)
    const view = await api<BackupConfigView>('PUT', '/api/backup/config', {
      destination: destinationBody(current),
      schedule: expression ? { expression, timeZone: current.timeZone.trim() || 'UTC' } : null,
      retention: { keep: current.keepAll ? 'all' : current.keep },
    })
    setForm(toForm(view, Object.keys(presets.data?.presets ?? {})))
    setSaved(true)
    onSaved()
  })
  if (!form) {
    return (
      <>
        <ErrorNote error={config.error ?? presets.error} />
        {config.error || presets.error ? null : <p aria-busy="true">Loading the settings…</p>}
      </>
    )
  }
  const set = (change: Partial<Form>) => {
    setForm({ ...form, ...change })
    setTested(false)
    setSaved(false)
  }
  const text = (field: keyof Form, label: string, extra: Record<string, unknown> = {}) => (
    <label>
      {label}
      <input value={form[field] as string} onInput={(event) => set({ [field]: event.currentTarget.value })} {...extra} />
    </label>
  )
  return (
    <form
      aria-label="Backup settings"
      onSubmit={(event) => {
        event.preventDefault()
        void save.run(form)
      }}
    >
      <fieldset>
        <legend>Destination</legend>
        <label>
          <input type="radio" name="destination-type" checked={form.type === 'dir'} onChange={() => set({ type: 'dir' })} />
          A directory on this machine (or a mounted network share)
        </label>
        <label>
          <input type="radio" name="destination-type" checked={form.type === 's3'} onChange={() => set({ type: 's3' })} />
          S3 (AWS or an S3-compatible store)
        </label>
      </fieldset>
      {form.type === 'dir' ? (
        text('path', 'Backup directory (absolute; empty: backups/ in the data directory)', { placeholder: '/var/backups/lectern' })
      ) : (
        <fieldset>
          <legend>S3</legend>
          <div class="grid">
            {text('bucket', 'Bucket', { required: true })}
            {text('region', 'Region', { placeholder: 'us-east-1' })}
          </div>
          <div class="grid">
            {text('accessKeyId', 'Access key ID (empty: the AWS default credentials)', { autocomplete: 'off' })}
            <label>
              Secret access key
              <input
                type="password"
                value={form.secret}
                disabled={form.removeSecret}
                autocomplete="new-password"
                placeholder={form.secretSet ? 'a secret is set: leave empty to keep it' : 'no secret is set'}
                onInput={(event) => set({ secret: event.currentTarget.value })}
              />
            </label>
          </div>
          {form.secretSet ? (
            <label>
              <input type="checkbox" checked={form.removeSecret} onChange={(event) => set({ removeSecret: event.currentTarget.checked, secret: '' })} />
              Remove the stored secret
            </label>
          ) : null}
          <p class="muted">{form.secretSet ? 'A secret is set. It is never shown.' : 'No secret is stored.'}</p>
          <div class="grid">
            {text('endpoint', 'Endpoint (empty: AWS; else e.g. https://minio.example.com)', { type: 'url' })}
            {text('prefix', 'Key prefix', { placeholder: 'lectern/' })}
          </div>
          <label>
            <input type="checkbox" checked={form.forcePathStyle} onChange={(event) => set({ forcePathStyle: event.currentTarget.checked })} />
            Path-style addressing (most S3-compatible stores need it)
          </label>
        </fieldset>
      )}
      <div class="actions">
        <button type="button" class="secondary" disabled={test.busy} aria-busy={test.busy} onClick={() => void test.run(form)}>
          Test connection
        </button>
        {tested ? (
          <span role="status" class="muted">
            The destination can be listed and written.
          </span>
        ) : null}
      </div>
      <ErrorNote error={test.error} />

      <fieldset>
        <legend>Schedule</legend>
        <div class="grid">
          <label>
            Runs
            <select value={form.schedule} onChange={(event) => set({ schedule: event.currentTarget.value })}>
              <option value={OFF}>Off (only on demand)</option>
              {Object.entries(presets.data?.presets ?? {}).map(([name, cron]) => (
                <option key={name} value={name}>
                  {name} ({cron})
                </option>
              ))}
              <option value={CUSTOM}>A cron expression</option>
            </select>
          </label>
          {form.schedule === CUSTOM ? text('cron', 'Cron expression (minute hour day month weekday)', { placeholder: '30 1 * * *', required: true }) : null}
          {form.schedule !== OFF ? text('timeZone', 'Time zone (IANA name)', { placeholder: 'Europe/Berlin' }) : null}
        </div>
        {form.schedule !== OFF ? <NextRuns expression={scheduleExpression(form)} timeZone={form.timeZone.trim() || 'UTC'} /> : null}
      </fieldset>

      <fieldset>
        <legend>Retention</legend>
        <label>
          <input type="checkbox" checked={form.keepAll} onChange={(event) => set({ keepAll: event.currentTarget.checked })} />
          Keep all archives
        </label>
        {form.keepAll ? null : (
          <label>
            Keep the newest
            <input type="number" min={1} step={1} value={form.keep} onInput={(event) => set({ keep: Number(event.currentTarget.value) })} />
          </label>
        )}
      </fieldset>

      <div class="actions">
        <button type="submit" disabled={save.busy} aria-busy={save.busy}>
          Save settings
        </button>
        {saved ? (
          <span role="status" class="muted">
            Saved.
          </span>
        ) : null}
      </div>
      <ErrorNote error={save.error} />
    </form>
  )
}

function NextRuns({ expression, timeZone }: { expression: string; timeZone: string }) {
  const next = useLoad(
    () => (expression ? api<ScheduleNext>('GET', `/api/backup/schedule/next${query({ expression, timeZone })}`) : Promise.resolve(undefined)),
    [expression, timeZone],
  )
  if (!expression) return <p class="muted">Enter a cron expression to see when it runs.</p>
  if (next.error) return <ErrorNote error={next.error} />
  if (!next.data) return <p aria-busy="true">Working out the next runs…</p>
  return (
    <p aria-label="Next runs">
      Next runs (your time): {next.data.next.map((iso) => formatDate(iso)).join(' · ')}
    </p>
  )
}
