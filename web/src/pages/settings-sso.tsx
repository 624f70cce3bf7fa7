/**
 * Single sign-on (on-premise): the provider the dashboard signs in with, saved once the server
 * has read the provider's discovery document. A configuration in lectern.yaml or the environment
 * wins, and is shown here read-only. The client secret is write-only: left blank, the saved one is kept.
 */
import { useState } from 'preact/hooks'
import { api } from '../api'
import { ErrorNote } from '../components'
import { useAction, useLoad } from '../hooks'

interface SsoSettings {
  issuer: string
  clientId: string
  scopes: string[]
  groupsClaim: string
  adminGroups: string[]
  passwordSignIn: boolean
  breakGlassAdmins: string[]
  clockToleranceSeconds: number
  label: string
}

interface SsoView {
  source: 'startup' | 'dashboard' | 'off'
  settings: SsoSettings | null
  publicUrl: string
  redirectUri: string | null
  clientSecretSet: boolean
  publicUrlFixed: boolean
}

const list = (text: string) => text.split(',').map((item) => item.trim()).filter(Boolean)

export function SsoSection() {
  const view = useLoad(() => api<SsoView>('GET', '/api/settings/sso'), [])
  return (
    <section aria-labelledby="sso">
      <h2 id="sso">Single sign-on</h2>
      <ErrorNote error={view.error} />
      {view.data ? <SsoForm key={JSON.stringify(view.data)} view={view.data} onChange={view.reload} /> : null}
    </section>
  )
}

function SsoForm({ view, onChange }: { view: SsoView; onChange: () => void }) {
  const settings = view.settings
  const [fields, setFields] = useState({
    issuer: settings?.issuer ?? '',
    clientId: settings?.clientId ?? '',
    clientSecret: '',
    publicUrl: view.publicUrl || location.origin,
    scopes: (settings?.scopes ?? ['openid', 'email', 'profile']).join(', '),
    groupsClaim: settings?.groupsClaim ?? 'groups',
    adminGroups: (settings?.adminGroups ?? []).join(', '),
    breakGlassAdmins: (settings?.breakGlassAdmins ?? []).join(', '),
    label: settings?.label ?? 'single sign-on',
  })
  const [passwordSignIn, setPasswordSignIn] = useState(settings?.passwordSignIn ?? true)
  const set = (name: keyof typeof fields) => (event: { currentTarget: HTMLInputElement }) => setFields({ ...fields, [name]: event.currentTarget.value })
  const save = useAction(async () => {
    await api('PUT', '/api/settings/sso', {
      issuer: fields.issuer,
      clientId: fields.clientId,
      ...(fields.clientSecret === '' ? {} : { clientSecret: fields.clientSecret }),
      ...(view.publicUrlFixed ? {} : { publicUrl: fields.publicUrl }),
      scopes: list(fields.scopes),
      groupsClaim: fields.groupsClaim,
      adminGroups: list(fields.adminGroups),
      passwordSignIn,
      breakGlassAdmins: list(fields.breakGlassAdmins),
      label: fields.label,
    })
    onChange()
  })
  const remove = useAction(async () => {
    await api('DELETE', '/api/settings/sso')
    onChange()
  })
  if (view.source === 'startup' && settings) {
    return (
      <>
        <p>
          Signing in with <strong>{settings.label}</strong> through {settings.issuer} (client {settings.clientId}), as <code>lectern.yaml</code> or the environment
          configure it: change it there and restart.
        </p>
        <p class="muted">
          Redirect URI registered at the provider: <code>{view.redirectUri}</code>. Password sign-in: {settings.passwordSignIn ? 'on' : `off, but for ${settings.breakGlassAdmins.join(', ')}`}.
        </p>
      </>
    )
  }
  const redirectUri = `${(view.publicUrlFixed ? view.publicUrl : fields.publicUrl).replace(/\/+$/, '')}/api/auth/sso/callback`
  return (
    <form
      aria-label="Single sign-on"
      onSubmit={(event) => {
        event.preventDefault()
        void save.run()
      }}
    >
      <p class="muted">
        {view.source === 'off' ? 'Off: people sign in with a password. ' : null}
        Register Lectern at your OpenID Connect provider as a web client with the redirect URI <code>{redirectUri}</code>, then fill in what it gives you. The server
        reads the provider's discovery document before it saves.
      </p>
      <label>
        Issuer URL
        <input value={fields.issuer} onInput={set('issuer')} placeholder="https://idp.example.com/realms/acme" required />
      </label>
      <div class="grid">
        <label>
          Client ID
          <input value={fields.clientId} onInput={set('clientId')} required />
        </label>
        <label>
          Client secret (write-only)
          <input type="password" value={fields.clientSecret} onInput={set('clientSecret')} placeholder={view.clientSecretSet ? 'saved; leave blank to keep it' : 'none: a public client'} autocomplete="off" />
        </label>
      </div>
      <label>
        Dashboard's public address
        <input value={fields.publicUrl} onInput={set('publicUrl')} disabled={view.publicUrlFixed} required />
        {view.publicUrlFixed ? <small>Set by mail.publicUrl (LECTERN_PUBLIC_URL).</small> : null}
      </label>
      <div class="grid">
        <label>
          Scopes (comma-separated)
          <input value={fields.scopes} onInput={set('scopes')} />
        </label>
        <label>
          Groups claim
          <input value={fields.groupsClaim} onInput={set('groupsClaim')} required />
        </label>
      </div>
      <label>
        Admin groups (comma-separated)
        <input value={fields.adminGroups} onInput={set('adminGroups')} placeholder="lectern-admins" />
      </label>
      <label>
        Sign-in button names
        <input value={fields.label} onInput={set('label')} required />
      </label>
      <label>
        <input type="checkbox" role="switch" checked={passwordSignIn} onChange={(event) => setPasswordSignIn(event.currentTarget.checked)} /> Password sign-in
      </label>
      <label>
        Break-glass admins (emails, comma-separated): may use a password while it is off
        <input value={fields.breakGlassAdmins} onInput={set('breakGlassAdmins')} placeholder="ops@example.com" />
      </label>
      <ErrorNote error={save.error ?? remove.error} />
      <button type="submit" aria-busy={save.busy} disabled={save.busy}>
        Save single sign-on
      </button>{' '}
      {view.source === 'dashboard' ? (
        <button type="button" class="secondary" aria-busy={remove.busy} disabled={remove.busy} onClick={() => void remove.run()}>
          Turn single sign-on off
        </button>
      ) : null}
    </form>
  )
}
