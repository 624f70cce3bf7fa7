/**
 * Server settings: flag, then environment (`LECTERN_*`, `PORT`), then the default. Checked once
 * at start-up; a bad value stops the start with a message naming the setting.
 */
import { z } from 'zod'
import { LecternError } from './errors.js'
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from './rate-limit.js'
import type { Mode } from './runtime.js'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export interface ServerSettings {
  dataDir: string
  mode: Mode
  host: string
  port: number
  logLevel: (typeof LOG_LEVELS)[number]
  rateLimits: RateLimitSettings
}

const schema = z.object({
  dataDir: z.string().min(1),
  mode: z.enum(['onprem', 'cloud']),
  host: z.string().min(1),
  port: z.coerce.number().int().min(0).max(65535),
  logLevel: z.enum(LOG_LEVELS),
  rateLimits: z.object({
    anonymous: z.coerce.number().int().min(0),
    keyed: z.coerce.number().int().min(0),
    windowSeconds: z.coerce.number().int().min(1).max(86_400),
  }),
})

export type SettingsInput = Partial<Omit<ServerSettings, 'rateLimits'>> & { rateLimits?: Partial<RateLimitSettings> }

const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''))

export function resolveSettings(input: SettingsInput, env: NodeJS.ProcessEnv = process.env): ServerSettings {
  const merged = {
    dataDir: input.dataDir ?? env.LECTERN_DATA_DIR ?? './lectern-data',
    mode: input.mode ?? env.LECTERN_MODE ?? 'onprem',
    host: input.host ?? env.LECTERN_HOST ?? '127.0.0.1',
    port: input.port ?? env.PORT ?? 3000,
    logLevel: input.logLevel ?? env.LECTERN_LOG_LEVEL ?? 'info',
    rateLimits: {
      ...DEFAULT_RATE_LIMITS,
      ...defined({
        anonymous: env.LECTERN_RATE_LIMIT_ANONYMOUS,
        keyed: env.LECTERN_RATE_LIMIT_KEYED,
        windowSeconds: env.LECTERN_RATE_LIMIT_WINDOW,
      }),
      ...defined(input.rateLimits ?? {}),
    },
  }
  const parsed = schema.safeParse(merged)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new LecternError('validation_error', `Invalid setting ${issue.path.join('.')}: ${issue.message}.`)
  }
  return parsed.data
}
