/**
 * The start-up settings catalogue: every setting a process reads once when it starts, with its
 * flag, environment variable, `lectern.yaml` key, default and meaning. One resolution rule for
 * every command and the server: flag > environment > configuration file > default. A bad value
 * stops the start with a message naming the setting and where it came from.
 *
 * Secrets are never start-up settings: API keys and tokens come from the environment variable a
 * setting names, or are sealed in the database with secret.key (see settings.ts for the settings
 * stored there, which change at run time).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import ipaddr from 'ipaddr.js'
import YAML from 'yaml'
import { z } from 'zod'
import { LecternError } from './errors.js'

/** More processes than this is a typo, not a host: each one holds its own caches and connection. */
const MAX_WORKERS = 256
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const
export const MODES = ['onprem', 'cloud'] as const

export type Mode = (typeof MODES)[number]
export type LogLevel = (typeof LOG_LEVELS)[number]
export type LogFormat = (typeof LOG_FORMATS)[number]
/** Fastify's trustProxy: off, on for every hop, a hop count, or the proxies' addresses and CIDRs. */
export type TrustProxy = boolean | number | string[]

export interface RateLimitSettings {
  /** Requests per window for callers without a key; 0 disables the limit. */
  anonymous: number
  /** Requests per window for callers with a key; 0 disables the limit. */
  keyed: number
  /** Sign-in attempts per window per account and client address together; 0 disables the limit. */
  signIn: number
  windowSeconds: number
}

export interface LecternConfig {
  dataDir: string
  mode: Mode
  server: { host: string; port: number; trustProxy: TrustProxy; supervise: boolean; workers: number; allowedHosts: string[] }
  log: { level: LogLevel; format: LogFormat }
  rateLimit: RateLimitSettings
  /** Where the library metrics read a request's country (src/usage/facets.ts); '' for nowhere. */
  metrics: { countryHeader: string }
  fetch: { allow: string[] }
  license: { publicKey: string }
  chromium: { path: string }
  /** How long one document may take to parse before it is skipped (src/jobs/parse-thread.ts). */
  parse: { budgetSeconds: number }
  /** How long a runner holds a job it runs without renewing its lease (src/jobs/lease.ts), and how many jobs a server runs at once. */
  jobs: { leaseSeconds: number; concurrency: number }
  /** Bytes of memory for loaded snippet sets (src/index/set-cache.ts). */
  search: { cacheSize: number }
  /** Where account mail goes (src/mail/); the SMTP password is read from LECTERN_SMTP_PASSWORD, never from here. */
  mail: { smtpUrl: string; from: string; publicUrl: string }
  /** The PostgreSQL the store lives in (src/store/postgres.ts); '' for SQLite in the data directory. */
  database: { url: string }
  /** OpenID Connect single sign-on for the dashboard (src/sso/); off while `issuer` is ''. Its client secret is read from LECTERN_SSO_CLIENT_SECRET, never from here. */
  sso: SsoSettings
}

export interface SsoSettings {
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

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? (T[K] extends unknown[] ? T[K] : DeepPartial<T[K]>) : T[K] }
/** Values given on the command line (or by a test), in the shape of the configuration. */
export type ConfigOverrides = DeepPartial<LecternConfig>

const booleanText = z.union([z.boolean(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'boolean') return value
  if (/^(true|yes|on|1)$/i.test(value.trim())) return true
  if (/^(false|no|off|0)$/i.test(value.trim())) return false
  ctx.addIssue({ code: 'custom', message: `expected true or false, not ${JSON.stringify(value)}` })
  return z.NEVER
})
/** Serving processes: a whole number from 1 to MAX_WORKERS, or `auto` (the default), one per CPU this process may use. */
const workersText = z.unknown().transform((value, ctx): number => {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined
  if (text?.toLowerCase() === 'auto') return os.availableParallelism()
  if (text !== undefined && /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= MAX_WORKERS) return Number(text)
  ctx.addIssue({ code: z.ZodIssueCode.custom, message: `expected auto or a whole number from 1 to ${MAX_WORKERS}, not ${JSON.stringify(value)}` })
  return z.NEVER
})
const listText = z.union([z.array(z.string()), z.string().transform((t) => t.split(',').map((s) => s.trim()).filter(Boolean))])
/** OAuth scopes: separated by commas or spaces (the protocol's own separator), in a list or a text. */
const scopesText = z.union([z.array(z.string()), z.string()]).transform((value) => (Array.isArray(value) ? value : value.split(/[\s,]+/)).map((s) => s.trim()).filter(Boolean))
/** Emails, comma-separated: a typo here would lock its admin out the day the provider is down. */
const emailsText = listText.pipe(z.array(z.string().trim().regex(/^[^\s@]+@[^\s@]+$/, 'expected email addresses (comma-separated)')))
/** proxy-addr's (and so Fastify's) names for address ranges, accepted besides addresses and CIDRs. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal'])

/** An IPv4 address in dotted four-part form or an IPv6 address, optionally with a /prefix that fits it. */
function isAddressOrCidr(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true
  const [address, prefix, ...rest] = entry.split('/')
  if (rest.length > 0 || address === undefined) return false
  const bits = ipaddr.IPv4.isValidFourPartDecimal(address) ? 32 : ipaddr.IPv6.isValid(address) ? 128 : 0
  if (bits === 0) return false
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits)
}

/**
 * A hop count (a whole number, 0 or more), true/false, or the proxies' addresses and CIDRs (a
 * list, or comma-separated text). Checked here so a typo stops the start instead of reaching
 * Fastify, which would trust nothing or everything without a word.
 */
const trustProxyText = z.unknown().transform((value, ctx): TrustProxy => {
  const refuse = (message: string) => {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message })
    return z.NEVER
  }
  if (typeof value === 'boolean') return value
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : undefined
  if (text !== undefined && /^(true|false)$/i.test(text)) return text.toLowerCase() === 'true'
  if (text !== undefined && /^-?\d+$/.test(text)) {
    return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : refuse(`a hop count must be 0 or more, not ${text}`)
  }
  const list = Array.isArray(value) ? value : text !== undefined ? text.split(',').map((entry) => entry.trim()).filter(Boolean) : undefined
  if (list === undefined || list.length === 0) return refuse('expected true, false, a hop count, or proxy addresses/CIDRs')
  for (const entry of list) {
    if (typeof entry !== 'string' || !isAddressOrCidr(entry.trim())) {
      return refuse(`${JSON.stringify(entry)} is not an IP address or CIDR (e.g. 10.0.0.5 or 10.0.0.0/8); expected addresses/CIDRs, a hop count, true or false`)
    }
  }
  return list.map((entry) => (entry as string).trim())
})

/** An http(s) URL without a path (`https://docs.example.com`), or empty; kept without a trailing slash. */
const publicUrlText = z.string().transform((value, ctx) => {
  const text = value.trim().replace(/\/+$/, '')
  if (text === '') return ''
  if (!/^https?:\/\/[^/?#\s]+$/i.test(text) || !URL.canParse(text)) {
    ctx.addIssue({ code: 'custom', message: `expected the dashboard's address like https://lectern.example.com, not ${JSON.stringify(value)}` })
    return z.NEVER
  }
  return text
})

/** An OpenID provider's issuer: https, or http on a loopback address only (a provider on the same host); '' for none. */
const issuerText = z.string().transform((value, ctx) => {
  const text = value.trim()
  if (text === '') return ''
  const url = URL.canParse(text) ? new URL(text) : undefined
  const loopback = url !== undefined && (url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\./.test(url.hostname))
  if (!url || url.search !== '' || url.hash !== '' || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))) {
    ctx.addIssue({ code: 'custom', message: `expected the provider's issuer URL, https://idp.example.com/realms/acme (http only on a loopback address), not ${JSON.stringify(value)}` })
    return z.NEVER
  }
  return text
})

/** smtp:// or smtps:// with host, port and user, or empty; a password in it would be shown by `config get`. */
/** postgres://[user[:password]@]host[:port]/database[?options], as libpq and `pg` read it; '' for SQLite. */
const databaseUrlText = z.string().transform((value, ctx) => {
  const text = value.trim()
  if (text === '') return ''
  const url = URL.canParse(text) ? new URL(text) : undefined
  if (!url || !['postgres:', 'postgresql:'].includes(url.protocol) || url.hostname === '' || url.pathname.length < 2) {
    ctx.addIssue({ code: 'custom', message: 'expected postgres://user@host:port/database (the password in the URL, or in PGPASSWORD)' })
    return z.NEVER
  }
  return text
})

const smtpUrlText = z.string().transform((value, ctx) => {
  const text = value.trim()
  if (text === '') return ''
  const url = URL.canParse(text) ? new URL(text) : undefined
  if (!url || !['smtp:', 'smtps:'].includes(url.protocol) || url.hostname === '') {
    ctx.addIssue({ code: 'custom', message: 'expected smtp://host:port or smtps://host:port (with user@ before the host if the relay wants a login)' })
    return z.NEVER
  }
  if (url.password !== '') {
    ctx.addIssue({ code: 'custom', message: 'the URL holds a password; put it in LECTERN_SMTP_PASSWORD instead' })
    return z.NEVER
  }
  return text
})

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 2 ** 10, mb: 2 ** 20, gb: 2 ** 30, tb: 2 ** 40 }

/** A memory size in bytes, from a share of this host's RAM (`25%`) or a size (`512MB`, `2GB`). */
const memorySize = z
  .union([z.number(), z.string()])
  .transform((value, ctx) => {
    const match = /^(\d+(?:\.\d+)?)\s*(%|b|kb|mb|gb|tb)?$/i.exec(String(value).trim())
    const amount = match ? Number(match[1]) : NaN
    const unit = match?.[2]?.toLowerCase() ?? 'b'
    const bytes = Math.floor(unit === '%' ? (os.totalmem() * amount) / 100 : amount * SIZE_UNITS[unit])
    if (!match || bytes < 2 ** 20 || (unit === '%' && amount > 100)) {
      ctx.addIssue({ code: 'custom', message: `expected a share of RAM up to 100% (like 25%) or a size of at least 1MB (like 512MB or 2GB), not ${JSON.stringify(value)}` })
      return z.NEVER
    }
    // A bound past the RAM could never be honoured: it is a typo, not a plan.
    if (bytes > os.totalmem()) {
      ctx.addIssue({ code: 'custom', message: `expected at most this host's RAM (${Math.floor(os.totalmem() / 2 ** 20)}MB), or a share of it like 25%, not ${JSON.stringify(value)}` })
      return z.NEVER
    }
    return bytes
  })

export interface SettingDef {
  /** Dotted path: the `lectern.yaml` key and the name `lectern config get` shows. */
  key: string
  description: string
  /** The flag of `lectern serve` (and, for dataDir and mode, of every command). */
  flag?: string
  env?: string
  /** The default, or for a setting whose default depends on the host (`hostDefault`), that rule in words. */
  default: unknown
  /** The default on this host, where it depends on the host (the data directory). */
  hostDefault?: (env: NodeJS.ProcessEnv) => unknown
  schema: z.ZodTypeAny
  /** `config get` shows people the value as written (`25%`, `512MB`), not as parsed (bytes); `--json` keeps the parsed value. */
  showWritten?: boolean
}

/**
 * The single sign-on settings as one schema, from their start-up definitions (sso.*): what the
 * dashboard's configuration (src/sso/configuration.ts) is checked against, so both ways of
 * configuring it accept the same values.
 */
export function ssoSettingsSchema(): z.ZodType<SsoSettings, z.ZodTypeDef, unknown> {
  const fields = STARTUP_SETTINGS.filter((setting) => setting.key.startsWith('sso.')).map((setting) => [setting.key.slice('sso.'.length), setting.schema.default(setting.default)])
  return z.object(Object.fromEntries(fields)).strict() as unknown as z.ZodType<SsoSettings, z.ZodTypeDef, unknown>
}

/** The dashboard's public address as mail.publicUrl takes it. */
export const publicUrlSchema = (): z.ZodType<string, z.ZodTypeDef, unknown> => STARTUP_SETTINGS.find((setting) => setting.key === 'mail.publicUrl')!.schema

/** The Debian package's data directory: the default wherever it exists, so every command on the host finds the service's data. */
export const SYSTEM_DATA_DIR = '/var/lib/lectern'

/**
 * The data directory when nothing names one: the package's, else the user's data folder (XDG
 * Base Directory: $XDG_DATA_HOME, else ~/.local/share). Never the working directory, so a command
 * run from another folder finds the same install.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, systemDir = SYSTEM_DATA_DIR): string {
  if (fs.existsSync(systemDir)) return systemDir
  const xdg = env.XDG_DATA_HOME
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.local', 'share')
  return path.join(base, 'lectern')
}

export const STARTUP_SETTINGS: readonly SettingDef[] = [
  {
    key: 'dataDir',
    flag: 'data-dir',
    env: 'LECTERN_DATA_DIR',
    default: `${SYSTEM_DATA_DIR} when it exists, else $XDG_DATA_HOME/lectern (~/.local/share/lectern)`,
    hostDefault: (env) => defaultDataDir(env),
    schema: z.string().min(1),
    description: 'Data directory: database, vector indexes, secret key. Only `lectern serve` and `lectern restore` create one; every other command refuses a directory without Lectern data.',
  },
  { key: 'mode', flag: 'mode', env: 'LECTERN_MODE', default: 'onprem', schema: z.enum(MODES), description: 'onprem, or cloud for the hosted multi-tenant edition.' },
  { key: 'server.host', flag: 'host', env: 'LECTERN_HOST', default: '127.0.0.1', schema: z.string().min(1), description: 'Address to listen on.' },
  { key: 'server.port', flag: 'port', env: 'PORT', default: 3000, schema: z.coerce.number().int().min(0).max(65535), description: 'Port to listen on (0 picks a free one).' },
  {
    key: 'server.trustProxy',
    flag: 'trust-proxy',
    env: 'LECTERN_TRUST_PROXY',
    default: false,
    schema: trustProxyText,
    description: 'Behind a reverse proxy: the proxies\' addresses/CIDRs (comma-separated), a hop count, or true. Client address, protocol and host then come from X-Forwarded-*; otherwise those headers are ignored. A count or true trusts whoever connects: use them only when the proxies are the only way in.',
  },
  {
    key: 'server.allowedHosts',
    env: 'LECTERN_ALLOWED_HOSTS',
    default: [],
    schema: listText,
    description: 'Names the server answers to besides IP addresses, localhost and the machine\'s host name (docs.example.com, *.example.com; comma-separated), and the sites whose pages may call it. On-premise, listening on loopback, a private address or all addresses, a request naming another host, and from anywhere a request from another site\'s page, is refused: DNS rebinding.',
  },
  { key: 'server.supervise', flag: 'supervise', env: 'LECTERN_SUPERVISE', default: true, schema: booleanText, description: 'After a dashboard restore is staged, restart in this process (true) or exit with code 75 for systemd or a container runtime to restart (false); unsupervised, a staged restore that fails to apply exits with 76.' },
  {
    key: 'server.workers',
    flag: 'workers',
    env: 'LECTERN_WORKERS',
    default: 'auto',
    schema: workersText,
    showWritten: true,
    description: 'Processes that serve requests on the one port (node:cluster), or auto: one per CPU (os.availableParallelism()). One of them also runs the jobs, the backup schedule and start-up housekeeping; 1 serves in a single process.',
  },
  { key: 'log.level', flag: 'log-level', env: 'LECTERN_LOG_LEVEL', default: 'info', schema: z.enum(LOG_LEVELS), description: 'Log level.' },
  { key: 'log.format', flag: 'log-format', env: 'LECTERN_LOG_FORMAT', default: 'auto', schema: z.enum(LOG_FORMATS), description: 'pretty (for people), json (for log collectors), or auto: pretty on a terminal, json otherwise.' },
  { key: 'rateLimit.anonymous', flag: 'rate-limit-anonymous', env: 'LECTERN_RATE_LIMIT_ANONYMOUS', default: 60, schema: z.coerce.number().int().min(0), description: 'Requests per window per client address, for calls with neither an API key nor a signed-in session (0: unlimited).' },
  { key: 'rateLimit.keyed', flag: 'rate-limit-keyed', env: 'LECTERN_RATE_LIMIT_KEYED', default: 1000, schema: z.coerce.number().int().min(0), description: 'Requests per window per API key, and per signed-in user (admin session) (0: unlimited).' },
  { key: 'rateLimit.signIn', env: 'LECTERN_RATE_LIMIT_SIGN_IN', default: 10, schema: z.coerce.number().int().min(0), description: 'Sign-in attempts per window per account and client address together (0: unlimited). Sign-in has this limit of its own: neither anonymous traffic from the address nor guesses at another account refuse an admin.' },
  { key: 'rateLimit.windowSeconds', flag: 'rate-limit-window', env: 'LECTERN_RATE_LIMIT_WINDOW', default: 60, schema: z.coerce.number().int().min(1).max(86_400), description: 'Rate-limit window in seconds.' },
  { key: 'metrics.countryHeader', env: 'LECTERN_METRICS_COUNTRY_HEADER', default: '', schema: z.string().trim().toLowerCase().regex(/^[a-z0-9-]*$/, 'expected a header name such as cf-ipcountry'), description: "The request header in which the edge proxy in front of Lectern puts the caller's ISO-2 country (cf-ipcountry behind Cloudflare), for the library metrics; empty: every country is unknown. Set it only when that proxy always sets or overwrites the header, or callers choose their country." },
  { key: 'fetch.allow', env: 'LECTERN_FETCH_ALLOW', default: [], schema: listText, description: 'Cloud mode: hosts (trusted as they are) or CIDRs that HTTP and git sources may reach although they are private addresses (comma-separated).' },
  { key: 'license.publicKey', env: 'LECTERN_LICENSE_PUBLIC_KEY', default: '', schema: z.string(), description: 'Ed25519 public key (PEM, or base64 of the 32 raw bytes) that verifies offline licenses; else the stored license.publicKeyFile.' },
  {
    key: 'search.cacheSize',
    flag: 'cache-size',
    env: 'LECTERN_CACHE_SIZE',
    default: '25%',
    schema: memorySize,
    showWritten: true,
    description: 'Memory for libraries loaded to answer questions: a share of RAM (25%) or a size (512MB, 2GB), shared among the --workers processes. The least recently asked library is dropped beyond it and loaded again when asked; the most-used are loaded at start.',
  },
  {
    key: 'database.url',
    env: 'DATABASE_URL',
    default: '',
    schema: databaseUrlText,
    description: "PostgreSQL 13 or later for the store, as postgres://user:password@host:5432/lectern (or the password in PGPASSWORD): every replica given the same URL and LECTERN_SECRET_KEY serves the same libraries (docs/scaling.md). Empty: SQLite in the data directory. Shown with its password hidden.",
  },
  { key: 'mail.smtpUrl', env: 'LECTERN_SMTP_URL', default: '', schema: smtpUrlText, description: 'Cloud mode: the mail relay for account mail (sign-up verification, password reset, invitations), as smtp://[user@]host:port or smtps://...; its password comes from LECTERN_SMTP_PASSWORD. Empty: the links are written to the log instead.' },
  { key: 'mail.from', env: 'LECTERN_MAIL_FROM', default: 'Lectern <no-reply@localhost>', schema: z.string().min(3), description: 'Cloud mode: the From address of account mail.' },
  { key: 'mail.publicUrl', env: 'LECTERN_PUBLIC_URL', default: '', schema: publicUrlText, description: "The dashboard's public address (https://lectern.example.com), never taken from a request's Host header: in the cloud the start of the links in account mail (required with mail.smtpUrl); on-premise, with single sign-on, the start of its redirect URI (<address>/api/auth/sso/callback)." },
  {
    key: 'parse.budgetSeconds',
    env: 'LECTERN_PARSE_BUDGET',
    default: 20,
    schema: z.coerce.number().int().min(1).max(3600),
    description: 'Seconds one document (a page, a source file, an OpenAPI spec) may take to parse. A document over it, or over 512 MB of memory, is skipped and named in its job\'s warnings; the rest of the library is indexed.',
  },
  {
    key: 'jobs.leaseSeconds',
    env: 'LECTERN_JOB_LEASE',
    default: 30,
    schema: z.coerce.number().int().min(2).max(3600),
    description: "Seconds a running job is held by the process that runs it without word from it. When that process dies (killed, its host lost) or is cut off from the database longer, another runner queues the job again and re-runs it from its start: the time a replica's job takes to fail over. Replicas' clocks must agree to well within it.",
  },
  {
    key: 'jobs.concurrency',
    env: 'LECTERN_JOB_CONCURRENCY',
    default: 1,
    schema: z.coerce.number().int().min(1).max(16),
    description: 'Jobs a server runs at once (each replica, on PostgreSQL). Jobs of one library version never run together; more at once finish a queue of many libraries sooner, at the cost of the memory and CPU each job takes beside the requests.',
  },
  {
    key: 'sso.issuer',
    env: 'LECTERN_SSO_ISSUER',
    default: '',
    schema: issuerText,
    description: "On-premise: the OpenID Connect provider the dashboard signs in with, by its issuer URL (its discovery document is read from <issuer>/.well-known/openid-configuration). Empty: no single sign-on. Needs sso.clientId and mail.publicUrl (LECTERN_PUBLIC_URL), whose /api/auth/sso/callback is the redirect URI to register; a confidential client's secret comes from LECTERN_SSO_CLIENT_SECRET.",
  },
  { key: 'sso.clientId', env: 'LECTERN_SSO_CLIENT_ID', default: '', schema: z.string().trim().max(500), description: 'The client ID Lectern is registered under at the provider.' },
  { key: 'sso.scopes', env: 'LECTERN_SSO_SCOPES', default: ['openid', 'email', 'profile'], schema: scopesText, description: 'The scopes asked for (separated by commas or spaces); openid is always asked. Add the one that releases the groups claim if the provider needs it (groups).' },
  { key: 'sso.groupsClaim', env: 'LECTERN_SSO_GROUPS_CLAIM', default: 'groups', schema: z.string().trim().min(1).max(200), description: "The ID token or userinfo claim that lists a user's groups (a list of names, or one name); read at every sign-in." },
  { key: 'sso.adminGroups', env: 'LECTERN_SSO_ADMIN_GROUPS', default: [], schema: listText, description: 'Groups whose members are admins (comma-separated); everyone else who signs in is a member. Decided again at every sign-in.' },
  { key: 'sso.passwordSignIn', env: 'LECTERN_SSO_PASSWORD_SIGN_IN', default: true, schema: booleanText, description: 'Whether users may still sign in with a password while single sign-on is on. Off: only sso.breakGlassAdmins can, for when the provider is down.' },
  { key: 'sso.breakGlassAdmins', env: 'LECTERN_SSO_BREAK_GLASS_ADMINS', default: [], schema: emailsText, description: 'Emails of admins who may sign in with their password although sso.passwordSignIn is off (comma-separated): the way in when the provider is down. Create one with `lectern admin create`.' },
  { key: 'sso.clockToleranceSeconds', env: 'LECTERN_SSO_CLOCK_TOLERANCE', default: 60, schema: z.coerce.number().int().min(0).max(600), description: "Seconds by which the provider's clock may differ from this host's when ID tokens are checked." },
  { key: 'sso.label', env: 'LECTERN_SSO_LABEL', default: 'single sign-on', schema: z.string().trim().min(1).max(60), description: 'What the sign-in button names: "Sign in with <label>".' },
  { key: 'chromium.path', env: 'LECTERN_CHROMIUM_PATH', default: '/usr/bin/chromium', schema: z.string().min(1), description: 'Chromium binary for websites that need JavaScript.' },
]

/**
 * `~` and `~/...` as the home folder, as a shell would read them: lectern.yaml, the environment and
 * `--data-dir=~/...` reach Lectern unexpanded, and a folder named `~` in the working directory is
 * what nobody means (and what a later `rm -rf ~` would make a disaster).
 */
function withHome(dir: string, env: NodeJS.ProcessEnv): string {
  if (dir !== '~' && !dir.startsWith('~/')) return dir
  return path.join(env.HOME || os.homedir(), dir.slice(1))
}

/** Where a setting's value came from, as `lectern config get` reports it. */
export type SettingSource = 'flag' | 'env' | 'file' | 'data-dir' | 'default'

export interface ResolvedConfig {
  config: LecternConfig
  sources: Record<string, SettingSource>
  /** Each setting as given (by its flag, the environment, the file or its default), before parsing. */
  written: Record<string, unknown>
  /** The configuration file read, if any. */
  file?: string
}

export const CONFIG_ENV = 'LECTERN_CONFIG'
export const DEFAULT_CONFIG_FILE = 'lectern.yaml'
/** The host's settings, where the Debian package puts them: the service and every command run on the host read the same file. */
export const SYSTEM_CONFIG_FILE = '/etc/lectern/lectern.yaml'

function getPath(object: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((o, part) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[part] : undefined), object)
}

function setPath(object: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.')
  let o = object
  for (const part of parts.slice(0, -1)) o = (o[part] ??= {}) as Record<string, unknown>
  o[parts.at(-1)!] = value
}

/** Every dotted key of a parsed YAML object, leaves only. */
function leafKeys(object: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(object).flatMap(([k, v]) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? leafKeys(v as Record<string, unknown>, `${prefix}${k}.`) : [`${prefix}${k}`],
  )
}

/**
 * The configuration file to read: `--config`, else LECTERN_CONFIG, else ./lectern.yaml when it
 * exists, else the host's /etc/lectern/lectern.yaml when it exists. A file named explicitly must
 * exist.
 */
export function configFilePath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd(), systemFile = SYSTEM_CONFIG_FILE): string | undefined {
  const named = flag ?? env[CONFIG_ENV]
  if (named) return path.resolve(cwd, named)
  return [path.join(cwd, DEFAULT_CONFIG_FILE), systemFile].find((file) => fs.existsSync(file))
}

/** Reads and checks a configuration file: YAML, known keys only, no secrets. */
/** Where the secrets of settings go, for one written into the configuration file. */
const SECRET_HOMES: Record<string, string> = {
  'sso.clientSecret': "LECTERN_SSO_CLIENT_SECRET, or the dashboard's Settings > Single sign-on (which seals it)",
  'mail.smtpPassword': 'LECTERN_SMTP_PASSWORD',
}

export function readConfigFile(file: string): Record<string, unknown> {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    throw new LecternError('validation_error', `Cannot read the configuration file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`)
  }
  let parsed: unknown
  try {
    parsed = YAML.parse(text) ?? {}
  } catch (err) {
    throw new LecternError('validation_error', `The configuration file ${file} is not valid YAML: ${(err as Error).message}`)
  }
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new LecternError('validation_error', `The configuration file ${file} must hold a YAML mapping.`)
  const known = new Set(STARTUP_SETTINGS.map((s) => s.key))
  for (const key of leafKeys(parsed as Record<string, unknown>)) {
    if (key === 'database.url' && hasPassword(getPath(parsed, key))) {
      throw new LecternError('validation_error', `${file}: database.url holds a password; secrets never go in the configuration file. Put the password in PGPASSWORD, or the whole URL in DATABASE_URL.`)
    }
    if (known.has(key)) continue
    if (/(secret|token|password|apikey|api_key)/i.test(key)) {
      const home = SECRET_HOMES[key] ?? 'the environment, or the sealed store (`lectern connections add`, `lectern config set`)'
      throw new LecternError('validation_error', `${file}: "${key}" looks like a secret; secrets never go in the configuration file. Use ${home}.`)
    }
    throw new LecternError('validation_error', `${file}: unknown setting "${key}". Known settings: ${[...known].join(', ')}.`)
  }
  return parsed as Record<string, unknown>
}

/** Query parameters libpq and `pg` read a password from, besides the URL's own. */
const PASSWORD_PARAMETERS = ['password', 'sslpassword']

const hasPassword = (url: unknown): boolean => {
  if (typeof url !== 'string' || !URL.canParse(url.trim())) return false
  const parsed = new URL(url.trim())
  return parsed.password !== '' || PASSWORD_PARAMETERS.some((name) => parsed.searchParams.has(name))
}

/** A database URL as it may be shown or logged: its passwords, if any, hidden. */
export function withoutPassword(url: string): string {
  if (!hasPassword(url)) return url
  const parsed = new URL(url.trim())
  if (parsed.password !== '') parsed.password = '***'
  for (const name of PASSWORD_PARAMETERS) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, '***')
  return parsed.href
}

/**
 * Resolves every start-up setting: flag > environment > file > default. `overrides` are the
 * values given as flags; `file` the parsed configuration file. Relative data directories are
 * resolved against the working directory (or the file's directory, for a path from the file).
 */
export function resolveConfig(
  overrides: ConfigOverrides = {},
  env: NodeJS.ProcessEnv = process.env,
  file?: { path: string; values: Record<string, unknown> },
): ResolvedConfig {
  const config: Record<string, unknown> = {}
  const sources: Record<string, SettingSource> = {}
  const written: Record<string, unknown> = {}
  for (const def of STARTUP_SETTINGS) {
    const candidates: Array<[SettingSource, unknown]> = [
      ['flag', getPath(overrides, def.key)],
      ['env', def.env ? env[def.env] : undefined],
      ['file', file ? getPath(file.values, def.key) : undefined],
      ['default', def.hostDefault ? def.hostDefault(env) : def.default],
    ]
    const [source, raw] = candidates.find(([, v]) => v !== undefined && v !== '') ?? ['default', def.default]
    const parsed = def.schema.safeParse(raw)
    if (!parsed.success) {
      const where = source === 'flag' ? `--${def.flag}` : source === 'env' ? def.env : source === 'file' ? `${def.key} in ${file?.path}` : def.key
      throw new LecternError('validation_error', `Invalid setting ${def.key} (from ${where}): ${parsed.error.issues[0].message}.`)
    }
    let value = parsed.data
    if (def.key === 'dataDir') value = withHome(value as string, env)
    if (def.key === 'dataDir' && source === 'file' && file) value = path.resolve(path.dirname(file.path), value as string)
    setPath(config, def.key, value)
    sources[def.key] = source
    written[def.key] = raw
  }
  return { config: config as unknown as LecternConfig, sources, written, ...(file ? { file: file.path } : {}) }
}

/** Reads the configuration file the flag or environment names (or ./lectern.yaml, or /etc/lectern/lectern.yaml) and resolves. */
export function loadConfig(overrides: ConfigOverrides = {}, configFlag?: string, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const file = configFilePath(configFlag, env)
  return resolveConfig(overrides, env, file ? { path: file, values: readConfigFile(file) } : undefined)
}
