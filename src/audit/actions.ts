/**
 * Every action the audit log records and what it means. No imports: the dashboard's Audit log
 * page (web/) reads the same list, as it reads tenancy/roles.ts.
 */
/** The actions, each with what it means (`lectern audit --help`, the README's "Audit log"). */
export const AUDIT_ACTIONS = {
  'access.rule.changed': "the access or grantees of a library or a namespace (/acme/*) changed",
  'access.default.changed': 'the access of libraries nobody configured changed (access.restrictNewLibraries)',
  'access.blocked': 'a caller asked for a library closed to it, and was answered as if it did not exist',
  'key.created': 'an API key was created',
  'key.revoked': 'an API key was revoked',
  'signin.succeeded': 'a user signed in to the dashboard',
  'signin.failed': 'a sign-in was refused (a wrong email or password, password sign-in off, a single sign-on answer refused)',
  'signout': 'a user signed out',
  'user.created': 'a user was created',
  'user.role.changed': "a user's role changed: in a teamspace, or by single sign-on's admin groups",
  'settings.changed': 'a setting changed (the names and values of settings that hold no secret)',
  'backup.created': 'a backup archive was written',
  'backup.failed': 'a backup failed',
  'restore.staged': 'a restore was staged from the dashboard, applied at the next start',
  'restore.applied': 'a backup was restored',
  'restore.failed': 'a staged restore could not be applied at start-up, and the data was left as it was',
  'gitops.synced': 'a GitOps sync applied the manifest: the libraries it created, re-indexed and pruned',
  'gitops.failed': 'a GitOps sync changed nothing: the manifest could not be read or is not valid',
  'connection.added': 'a connection (a Confluence site, a Notion workspace, a git host) was stored: its kind and address, never its token or key',
  'connection.removed': 'a connection was removed, with its token, key and webhook secret',
  'webhook.secret.changed': "a git connection's webhook secret was set, generated or removed (never the secret itself)",
  'webhook.received': "a git host's push webhook was acted on: the libraries it refreshed, and whether it started a GitOps sync",
  'webhook.refused': 'a push webhook delivery was refused: not signed with the secret of the git connection for its host, or replayed',
} as const
export type AuditAction = keyof typeof AUDIT_ACTIONS
