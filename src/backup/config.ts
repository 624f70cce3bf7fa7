/**
 * The backup configuration, stored in the settings table so the server and the CLI share it.
 * The S3 secret is sealed with secret.key in its own setting and never leaves this module in
 * clear text except to build the S3 client: views report only `secretSet`.
 */
import path from 'node:path'
import { z } from 'zod'
import { LecternError } from '../errors.js'
import type { Store } from '../store/index.js'
import { SETTING_KEYS } from '../store/settings.js'
import { directoryDestination, normalisePrefix, parseTarget, s3Destination, type Destination } from './destinations.js'
import type { Retention } from './retention.js'
import { validateSchedule, type Schedule } from './schedule.js'

const CONFIG_SETTING = SETTING_KEYS.backupConfig
const SECRET_SETTING = SETTING_KEYS.backupS3Secret

export interface S3Config {
  type: 's3'
  bucket: string
  region: string
  accessKeyId: string
  endpoint: string
  forcePathStyle: boolean
  prefix: string
}

export interface BackupConfig {
  /** `path: null` is the data directory's `backups/`. */
  destination: { type: 'dir'; path: string | null } | S3Config
  schedule: Schedule | null
  retention: Retention
}

export type BackupConfigView = Omit<BackupConfig, 'destination'> & {
  destination: { type: 'dir'; path: string } | (S3Config & { secretSet: boolean })
}

const DEFAULT_CONFIG: BackupConfig = { destination: { type: 'dir', path: null }, schedule: null, retention: { keep: 'all' } }

export const DestinationUpdate = z.discriminatedUnion('type', [
  z.object({ type: z.literal('dir'), path: z.string().min(1).nullable().optional() }).strict(),
  z
    .object({
      type: z.literal('s3'),
      bucket: z.string().min(1),
      region: z.string().optional(),
      accessKeyId: z.string().optional(),
      /** Omitted: keep the stored secret; empty string: remove it. */
      secretAccessKey: z.string().optional(),
      endpoint: z.union([z.literal(''), z.string().url()]).optional(),
      forcePathStyle: z.boolean().optional(),
      prefix: z.string().optional(),
    })
    .strict(),
])

export const BackupConfigUpdate = z
  .object({
    destination: DestinationUpdate,
    schedule: z.object({ expression: z.string().min(1), timeZone: z.string().min(1).default('UTC') }).strict().nullable(),
    retention: z.object({ keep: z.union([z.number().int().min(1), z.literal('all')]) }).strict(),
  })
  .partial()
  .strict()

export type BackupConfigUpdate = z.input<typeof BackupConfigUpdate>

export async function readBackupConfig(store: Store): Promise<BackupConfig> {
  return { ...DEFAULT_CONFIG, ...((await store.settings.get<BackupConfig>(CONFIG_SETTING)) ?? {}) }
}

export async function viewBackupConfig(store: Store, stored?: BackupConfig): Promise<BackupConfigView> {
  const config = stored ?? (await readBackupConfig(store))
  const d = config.destination
  return {
    ...config,
    destination: d.type === 'dir' ? { type: 'dir', path: d.path ?? store.paths.backups } : { ...d, secretSet: (await store.settings.get(SECRET_SETTING)) !== undefined },
  }
}

/** What the audit log says of a backup config: where, when and how many, never a credential. */
export function backupConfigFacts(view: BackupConfigView): Record<string, unknown> {
  const d = view.destination
  const destination = d.type === 'dir' ? { type: 'dir', path: d.path } : { type: 's3', bucket: d.bucket, endpoint: d.endpoint, prefix: d.prefix }
  return { destination, schedule: view.schedule, retention: view.retention }
}

/** Validates and merges an update (fields left out keep their value); returns the new view. */
export async function updateBackupConfig(store: Store, input: unknown): Promise<BackupConfigView> {
  const update = parseInput(BackupConfigUpdate, input, 'Backup config')
  if (update.schedule) validateSchedule(update.schedule)
  const resolved = update.destination ? resolveDestination(update.destination) : undefined
  // One transaction: the fields left out are those stored now, and a reader never sees the new
  // destination with the old secret.
  const next = await store.transaction(async () => {
    const config = await readBackupConfig(store)
    if (update.schedule !== undefined) config.schedule = update.schedule
    if (update.retention) config.retention = update.retention
    if (resolved) config.destination = resolved.destination
    await store.settings.set(CONFIG_SETTING, config)
    if (resolved?.secret === '') await store.settings.remove(SECRET_SETTING)
    else if (resolved?.secret !== undefined) await store.settings.set(SECRET_SETTING, store.secrets.seal(resolved.secret))
    return config
  })
  return await viewBackupConfig(store, next)
}

function parseInput<T extends z.ZodTypeAny>(schema: T, input: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new LecternError('validation_error', `${what} ${issue.path.join('.') || 'body'}: ${issue.message}`)
  }
  return parsed.data
}

/** A destination update as it is stored, with the secret it carries (undefined: keep the stored one). */
function resolveDestination(update: z.output<typeof DestinationUpdate>): { destination: BackupConfig['destination']; secret: string | undefined } {
  if (update.type === 'dir') {
    const dir = update.path ?? null
    if (dir !== null && !path.isAbsolute(dir)) throw new LecternError('validation_error', `Backup directory "${dir}" must be an absolute path.`)
    return { destination: { type: 'dir', path: dir }, secret: undefined }
  }
  const { secretAccessKey, ...s3 } = update
  return {
    destination: {
      type: 's3',
      bucket: s3.bucket,
      region: s3.region || 'us-east-1',
      accessKeyId: s3.accessKeyId ?? '',
      endpoint: s3.endpoint ?? '',
      forcePathStyle: s3.forcePathStyle ?? false,
      prefix: normalisePrefix(s3.prefix ?? ''),
    },
    secret: secretAccessKey,
  }
}

/**
 * The destination an update describes, without storing it (to test it first). An S3 secret left
 * out is the stored one, an empty one none (the default credential chain).
 */
export async function openProposedDestination(store: Store, input: unknown): Promise<Destination> {
  const { destination, secret } = resolveDestination(parseInput(DestinationUpdate, input, 'Backup destination'))
  if (destination.type === 'dir') return directoryDestination(destination.path ?? store.paths.backups)
  return s3Destination({ ...destination, secretAccessKey: secret ?? await storedSecret(store) }, store.paths.backupWork + '-outgoing')
}

async function storedSecret(store: Store): Promise<string> {
  const sealed = await store.settings.get<string>(SECRET_SETTING)
  return sealed ? store.secrets.open(sealed) : ''
}

/**
 * The destination of the configured config, or of `target` (`--to DIR|s3://bucket/prefix`): an
 * S3 target takes region, endpoint, path style and keys from the stored S3 settings.
 */
export async function openDestination(store: Store, target?: string): Promise<Destination> {
  const config = await readBackupConfig(store)
  const parsedTarget = target ? parseTarget(target) : undefined
  if (parsedTarget?.kind === 'dir') return directoryDestination(parsedTarget.path)
  const d = config.destination
  if (!parsedTarget && d.type === 'dir') return directoryDestination(d.path ?? store.paths.backups)
  const s3 = d.type === 's3' ? d : { region: 'us-east-1', accessKeyId: '', endpoint: '', forcePathStyle: false }
  return s3Destination(
    {
      bucket: parsedTarget?.kind === 's3' ? parsedTarget.bucket : (d as S3Config).bucket,
      prefix: parsedTarget?.kind === 's3' ? parsedTarget.prefix : (d as S3Config).prefix,
      region: s3.region,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: await storedSecret(store),
      endpoint: s3.endpoint,
      forcePathStyle: s3.forcePathStyle,
    },
    store.paths.backupWork + '-outgoing',
  )
}
