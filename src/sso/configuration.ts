/**
 * Where single sign-on's configuration comes from, and changing it from the dashboard. Two
 * sources, never merged:
 * - the start-up settings (`sso.*` in lectern.yaml or LECTERN_SSO_*, the secret in
 *   LECTERN_SSO_CLIENT_SECRET), which win whenever they name an issuer: the dashboard then shows
 *   them and cannot change them;
 * - else the configuration an admin saved (setting `sso.config`, the client secret sealed with
 *   secret.key in `sso.clientSecret`), which every process reads at its next sign-in, without a
 *   restart.
 * A configuration is saved only once its provider answered discovery, so a typo in the issuer is
 * refused rather than found by the next person signing in; and password sign-in is switched off
 * only with a break-glass admin named, so nobody is locked out when the provider is down.
 */
import { z } from 'zod'
import { audit, type AuditContext } from '../audit/log.js'
import { publicUrlSchema, ssoSettingsSchema, type LecternConfig, type SsoSettings } from '../config.js'
import { LecternError } from '../errors.js'
import type { Store } from '../store/index.js'
import { SETTING_KEYS } from '../store/settings.js'
import { isBreakGlass, requireSsoConfig, SingleSignOn, SSO_CALLBACK_PATH, ssoEnabled, type SsoOptions } from './oidc.js'

const CONFIG_SETTING = SETTING_KEYS.ssoConfig
const SECRET_SETTING = SETTING_KEYS.ssoClientSecret

const StoredSso = z.object({ settings: ssoSettingsSchema(), publicUrl: publicUrlSchema() })
type StoredSso = z.infer<typeof StoredSso>

/** The single sign-on in force, read again at every sign-in (a dashboard change applies at once, on every replica). */
export interface SsoSource {
  current(): Promise<SingleSignOn | undefined>
}

/**
 * The settings of the single sign-on in force, or undefined when none is, or when a stored
 * configuration no longer reads (logged): the sign-in page and password sign-in stay usable, the
 * way in to fix it.
 */
export async function settingsInForce(source: SsoSource, log: { error(obj: object, msg: string): void }): Promise<SsoSettings | undefined> {
  try {
    return (await source.current())?.settings
  } catch (err) {
    log.error({ err }, 'single sign-on is configured but its configuration could not be read; password sign-in stays open')
    return undefined
  }
}

/** What the start-up settings configure, or undefined when they name no issuer. */
function startupOptions(config: LecternConfig): SsoOptions | undefined {
  if (!ssoEnabled(config.sso)) return undefined
  return { settings: config.sso, publicUrl: config.mail.publicUrl, clientSecret: process.env.LECTERN_SSO_CLIENT_SECRET || undefined }
}

/**
 * The source of an install's single sign-on: none in the cloud; the start-up settings when they
 * configure it (a half configuration refuses to start); else the dashboard's, kept as long as it
 * is unchanged so discovery and the provider's keys are not read again at every sign-in.
 */
export function createSsoSource(store: Store, config: LecternConfig): SsoSource {
  if (config.mode !== 'onprem') return { current: async () => undefined }
  const startup = startupOptions(config)
  requireSsoConfig(startup ?? { settings: config.sso, publicUrl: config.mail.publicUrl, clientSecret: undefined })
  if (startup) {
    const fixed = new SingleSignOn(startup)
    return { current: async () => fixed }
  }
  let cached: { key: string; sso: SingleSignOn } | undefined
  return {
    async current() {
      const [stored, sealed] = await Promise.all([store.settings.get<unknown>(CONFIG_SETTING), store.settings.get<string>(SECRET_SETTING)])
      if (stored === undefined) return undefined
      const key = JSON.stringify([stored, sealed])
      if (cached?.key !== key) {
        const { settings, publicUrl } = readStored(stored)
        cached = { key, sso: new SingleSignOn({ settings, publicUrl, clientSecret: sealed === undefined ? undefined : store.secrets.open(sealed) }) }
      }
      return cached.sso
    },
  }
}

function readStored(value: unknown): StoredSso {
  const parsed = StoredSso.safeParse(value)
  if (!parsed.success) throw new LecternError('internal_error', `The stored single sign-on configuration (setting ${CONFIG_SETTING}) is not valid: ${parsed.error.issues[0]?.message}; save it again from the dashboard's Settings.`)
  return parsed.data
}

export interface SsoConfigurationView {
  /** `startup`: lectern.yaml or the environment (read-only here); `dashboard`: saved by an admin; `off`. */
  source: 'startup' | 'dashboard' | 'off'
  settings: SsoSettings | null
  /** The dashboard's public address the redirect URI starts with: mail.publicUrl when set. */
  publicUrl: string
  /** What to register at the provider. */
  redirectUri: string | null
  /** Whether a client secret is configured; the secret itself is never shown. */
  clientSecretSet: boolean
  /** Whether the public address is mail.publicUrl's (then it is changed there, not here). */
  publicUrlFixed: boolean
}

export async function viewSsoConfiguration(store: Store, config: LecternConfig): Promise<SsoConfigurationView> {
  const publicUrlFixed = config.mail.publicUrl !== ''
  const startup = startupOptions(config)
  const redirect = (publicUrl: string) => (publicUrl === '' ? null : `${publicUrl}${SSO_CALLBACK_PATH}`)
  if (startup) return { source: 'startup', settings: startup.settings, publicUrl: startup.publicUrl, redirectUri: redirect(startup.publicUrl), clientSecretSet: startup.clientSecret !== undefined, publicUrlFixed }
  const stored = await store.settings.get<unknown>(CONFIG_SETTING)
  if (stored === undefined) return { source: 'off', settings: null, publicUrl: config.mail.publicUrl, redirectUri: redirect(config.mail.publicUrl), clientSecretSet: false, publicUrlFixed }
  const { settings, publicUrl } = readStored(stored)
  return { source: 'dashboard', settings, publicUrl, redirectUri: redirect(publicUrl), clientSecretSet: (await store.settings.get(SECRET_SETTING)) !== undefined, publicUrlFixed }
}

/** What an admin saves: the settings (as `sso.*` takes them), the public address, and the client secret (omitted: kept; null or '': none). */
export const SsoConfigurationUpdate = z
  .object({ publicUrl: z.string().max(500).optional(), clientSecret: z.string().max(1000).nullable().optional() })
  .passthrough()

function refuseWhenStartup(config: LecternConfig): void {
  if (startupOptions(config)) {
    throw new LecternError(
      'forbidden',
      'Single sign-on is configured by lectern.yaml or the environment (sso.issuer), which wins over the dashboard: change it there and restart, or remove sso.issuer there to configure it here.',
    )
  }
}

/**
 * Saves the dashboard's single sign-on configuration, after the provider answered discovery
 * (sso_unavailable otherwise) and the checks above; records who did, never the secret.
 */
export async function saveSsoConfiguration(store: Store, config: LecternConfig, context: AuditContext, input: unknown): Promise<SsoConfigurationView> {
  refuseWhenStartup(config)
  const update = SsoConfigurationUpdate.safeParse(input)
  if (!update.success) throw new LecternError('validation_error', `${update.error.issues[0]?.path.join('.')}: ${update.error.issues[0]?.message}.`)
  const { publicUrl: askedUrl, clientSecret, ...rest } = update.data
  const parsed = ssoSettingsSchema().safeParse(rest)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new LecternError('validation_error', `sso.${issue?.path.join('.') || 'settings'}: ${issue?.message}.`)
  }
  const settings = parsed.data
  if (!ssoEnabled(settings)) throw new LecternError('validation_error', "Name the provider's issuer URL; to turn single sign-on off, remove its configuration instead.")
  const publicUrl = await resolvePublicUrl(config, askedUrl)
  await requireBreakGlass(store, settings)
  const sealed = await store.settings.get<string>(SECRET_SETTING)
  const secret = clientSecret === undefined ? (sealed === undefined ? undefined : store.secrets.open(sealed)) : clientSecret || undefined
  const options: SsoOptions = { settings, publicUrl, clientSecret: secret }
  requireSsoConfig(options)
  await new SingleSignOn(options).probe()
  await store.transaction(async () => {
    await store.settings.set(CONFIG_SETTING, { settings, publicUrl } satisfies StoredSso)
    if (secret === undefined) await store.settings.remove(SECRET_SETTING)
    else if (clientSecret !== undefined) await store.settings.set(SECRET_SETTING, store.secrets.seal(secret))
    await audit(store, context, 'settings.changed', 'sso', { ...settings, publicUrl, clientSecret: clientSecret === undefined ? (secret ? 'kept' : 'none') : secret ? 'set' : 'none' })
  })
  return await viewSsoConfiguration(store, config)
}

/** Turns the dashboard's single sign-on off; users it created keep their accounts and sign in with a password once one is set. */
export async function removeSsoConfiguration(store: Store, config: LecternConfig, context: AuditContext): Promise<SsoConfigurationView> {
  refuseWhenStartup(config)
  await store.transaction(async () => {
    await store.settings.remove(CONFIG_SETTING)
    await store.settings.remove(SECRET_SETTING)
    await audit(store, context, 'settings.changed', 'sso', { issuer: '' })
  })
  return await viewSsoConfiguration(store, config)
}

async function resolvePublicUrl(config: LecternConfig, asked: string | undefined): Promise<string> {
  const fixed = config.mail.publicUrl
  if (fixed !== '') {
    if (asked !== undefined && asked.trim().replace(/\/+$/, '') !== fixed) {
      throw new LecternError('validation_error', `The dashboard's public address is set by mail.publicUrl (LECTERN_PUBLIC_URL) to ${fixed}; change it there.`)
    }
    return fixed
  }
  const parsed = publicUrlSchema().safeParse(asked ?? '')
  if (!parsed.success) throw new LecternError('validation_error', `publicUrl: ${parsed.error.issues[0]?.message}.`)
  if (parsed.data === '') throw new LecternError('validation_error', "Give the dashboard's public address (publicUrl, e.g. https://lectern.example.com): the redirect URI registered at the provider starts with it.")
  return parsed.data
}

/** With password sign-in off, at least one named break-glass admin must exist: the way in when the provider is down. */
async function requireBreakGlass(store: Store, settings: SsoSettings): Promise<void> {
  if (settings.passwordSignIn) return
  for (const email of settings.breakGlassAdmins) {
    const user = await store.users.byEmail(email)
    if (user?.role === 'admin' && isBreakGlass(settings.breakGlassAdmins, user.email)) return
  }
  throw new LecternError(
    'validation_error',
    'Password sign-in can be switched off only with a break-glass admin named (breakGlassAdmins, the email of an existing admin who signs in with a password): the way in when the provider is down. Create one with `lectern admin create`.',
  )
}
