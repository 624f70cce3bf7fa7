/**
 * Where the GitOps manifest is: its repository, the file in it and the branch, whether a sync
 * prunes what the manifest no longer lists, and whether syncs run by themselves (at start, on a
 * schedule). Stored in the settings table, so the server and
 * the CLI share it; the repository is cloned with the install's git connection for its host.
 */
import path from 'node:path'
import { z } from 'zod'
import { audit, type AuditContext } from '../audit/log.js'
import { validateSchedule } from '../backup/schedule.js'
import { LecternError } from '../errors.js'
import { isSafeRefName, parseRepoUrl } from '../sources/repo-url.js'
import type { Store } from '../store/index.js'
import { SETTING_KEYS } from '../store/settings.js'

export const GitOpsConfigSchema = z
  .object({
    /** The manifest repository; '' while GitOps is not set up. */
    repoUrl: z.string().trim().max(2000).default(''),
    /** The manifest's path in it. */
    path: z.string().trim().min(1).max(500).default('repos.yaml'),
    /** '' for the repository's default branch. */
    branch: z.string().trim().max(250).default(''),
    /** Whether a sync removes the libraries it added that the manifest no longer lists. */
    prune: z.boolean().default(false),
    /** Automatic syncs: at the server's start and on `schedule`. Off, syncs run on demand only. */
    enabled: z.boolean().default(false),
    /** When automatic syncs run: a preset (daily, every-6-hours, weekly) or a 5-field cron expression, in UTC; '' for none. */
    schedule: z.string().trim().max(100).default(''),
  })
  .strict()
export type GitOpsConfig = z.infer<typeof GitOpsConfigSchema>

export async function readGitOpsConfig(store: Store): Promise<GitOpsConfig> {
  const parsed = GitOpsConfigSchema.safeParse((await store.settings.get<unknown>(SETTING_KEYS.gitopsConfig)) ?? {})
  if (!parsed.success) throw new LecternError('internal_error', `The stored GitOps configuration (setting ${SETTING_KEYS.gitopsConfig}) is not valid; set it again with \`lectern gitops config\`.`)
  return parsed.data
}

/** Changes some of the configuration, checked as a whole; records who did. */
export async function updateGitOpsConfig(store: Store, context: AuditContext, change: Partial<GitOpsConfig>): Promise<GitOpsConfig> {
  const parsed = GitOpsConfigSchema.safeParse({ ...(await readGitOpsConfig(store)), ...change })
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new LecternError('validation_error', `${issue?.path.join('.') || 'config'}: ${issue?.message}.`)
  }
  const config = parsed.data
  if (config.repoUrl !== '') parseRepoUrl(config.repoUrl)
  if (config.branch !== '' && !isSafeRefName(config.branch)) throw new LecternError('validation_error', `"${config.branch}" is not a valid branch name.`)
  manifestPath(config.path)
  if (config.schedule !== '') validateSchedule({ expression: config.schedule, timeZone: 'UTC' })
  if (config.enabled && config.repoUrl === '') throw new LecternError('validation_error', 'Automatic syncs need the manifest repository: give --repo (repoUrl) too.')
  await store.transaction(async () => {
    await store.settings.set(SETTING_KEYS.gitopsConfig, config)
    await audit(store, context, 'settings.changed', 'gitops', { ...config })
  })
  return config
}

/** The manifest's path inside the repository, checked: relative, inside it, no `..`. */
export function manifestPath(raw: string): string {
  const normalised = path.posix.normalize(raw.replaceAll('\\', '/'))
  if (path.posix.isAbsolute(normalised) || normalised === '..' || normalised.startsWith('../') || normalised === '.') {
    throw new LecternError('validation_error', `The manifest path "${raw}" must be a file inside the repository, such as repos.yaml or deploy/lectern/repos.yaml.`)
  }
  return normalised
}
