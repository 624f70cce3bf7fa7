/**
 * The one catalogue of Lectern errors. Every error a user can see is created here, with its
 * spec code (the `error` field of the `{error, message}` body), its HTTP status and the exit
 * code a CLI command ends with. Codes are never reused once retired; docs/errors.md has a row
 * for each, kept in sync by test/errors.test.ts.
 */

export interface ErrorSpec {
  status: number
  exit: number
  summary: string
}

export const ERROR_CODES = {
  validation_error: { status: 400, exit: 2, summary: 'Input invalid, for example a required value missing.' },
  invalid_library_id: { status: 400, exit: 2, summary: 'Library ID not of the shapes in spec 2.1.' },
  invalid_api_key: { status: 401, exit: 3, summary: 'API key malformed, unknown or revoked.' },
  not_authenticated: { status: 401, exit: 3, summary: 'No valid admin session: log in first.' },
  invalid_signature: { status: 401, exit: 3, summary: "A webhook delivery is not signed with the webhook secret of the git connection for its repository's host." },
  access_denied: { status: 403, exit: 3, summary: 'Library is not in the allowed libraries.' },
  forbidden: { status: 403, exit: 3, summary: 'The caller may not do this.' },
  not_found: { status: 404, exit: 4, summary: 'No such route or resource.' },
  library_not_found: { status: 404, exit: 4, summary: 'No such library, or no access to it.' },
  tag_not_found: { status: 404, exit: 4, summary: 'Requested version tag does not exist; the message lists the available tags.' },
  no_snippets_found: { status: 404, exit: 4, summary: 'The library holds no snippets that match.' },
  no_libraries_found: { status: 404, exit: 4, summary: 'A search matched no libraries.' },
  key_not_found: { status: 404, exit: 4, summary: 'No API key with that ID.' },
  team_not_found: { status: 404, exit: 4, summary: 'Team missing or access denied.' },
  user_not_found: { status: 404, exit: 4, summary: 'User missing.' },
  job_not_found: { status: 404, exit: 4, summary: 'No job with that ID.' },
  backup_not_found: { status: 404, exit: 4, summary: 'No backup archive with that name at the destination.' },
  library_redirected: { status: 301, exit: 5, summary: 'The library moved; use the ID in redirectUrl.' },
  library_not_finalized: { status: 202, exit: 5, summary: 'The library is still being processed; retry later.' },
  library_exists: { status: 409, exit: 5, summary: 'A library with that ID already exists.' },
  library_busy: { status: 409, exit: 5, summary: 'The library is being processed; wait for its job to end.' },
  duplicate_repo: { status: 409, exit: 5, summary: 'The private repository is already in the team.' },
  job_not_active: { status: 409, exit: 5, summary: 'The job has already ended; only a queued or running job can be cancelled.' },
  cancelled: { status: 409, exit: 5, summary: 'The job was cancelled before it finished; the library kept what it served before.' },
  backup_running: { status: 409, exit: 5, summary: 'A backup is already running; the message says since when.' },
  delivery_replayed: { status: 409, exit: 5, summary: 'A webhook delivery with that ID was received before; each is acted on once.' },
  sync_running: { status: 409, exit: 5, summary: 'A GitOps sync is already running, in this process or another replica.' },
  archive_invalid: { status: 400, exit: 9, summary: 'The backup archive is damaged, incomplete or not a Lectern backup; nothing was changed.' },
  restore_refused: { status: 409, exit: 9, summary: 'The restore was refused before anything was changed (newer archive, server running, no confirmation).' },
  no_code_found: { status: 422, exit: 6, summary: 'The library holds no documentation or code.' },
  library_too_large: { status: 422, exit: 6, summary: 'The library is over the size cap.' },
  payload_too_large: { status: 413, exit: 2, summary: 'The request body is over the size cap.' },
  rate_limit_exceeded: { status: 429, exit: 7, summary: 'Rate limit exceeded; wait for Retry-After seconds.' },
  internal_error: { status: 500, exit: 1, summary: 'Processing failed.' },
  source_unreachable: { status: 500, exit: 1, summary: 'The source (git host, URL) could not be read.' },
  processing_failed: { status: 500, exit: 1, summary: 'The library failed to process; the message says how to retry.' },
  data_dir_locked: { status: 500, exit: 8, summary: 'Another Lectern server holds the data directory.' },
  data_dir_empty: { status: 404, exit: 4, summary: 'The data directory holds no Lectern data (a wrong --data-dir?).' },
  disk_full: { status: 507, exit: 10, summary: 'The data volume (or the backup destination) is full; the write was refused, reads keep working.' },
  database_too_new: { status: 500, exit: 11, summary: 'A newer Lectern migrated the database; this version cannot open it.' },
  database_unreachable: { status: 503, exit: 12, summary: 'The PostgreSQL database cannot be reached; the server retries by itself.' },
  sso_unavailable: { status: 503, exit: 1, summary: 'The identity provider of single sign-on could not be reached or read.' },
  secret_key_mismatch: { status: 500, exit: 13, summary: "LECTERN_SECRET_KEY is not the key this database's secrets were sealed with." },
  search_failed: { status: 503, exit: 1, summary: 'Retrieval failed; retry later.' },
  not_ready: { status: 503, exit: 1, summary: 'The server is starting or stopping.' },
  timeout: { status: 504, exit: 1, summary: 'Processing timed out.' },
} as const satisfies Record<string, ErrorSpec>

export type ErrorCode = keyof typeof ERROR_CODES

export class LecternError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly exit: number
  /** Extra body fields, e.g. `redirectUrl` on a 301. */
  readonly extra: Record<string, unknown>
  /**
   * The library a caller was refused because access rules or a policy keep it from them (not one
   * that does not exist), for the audit log (src/audit/log.ts); never sent to the client.
   */
  readonly blockedLibrary: string | undefined

  constructor(code: ErrorCode, message: string, extra: Record<string, unknown> = {}, options?: { cause?: unknown; blockedLibrary?: string }) {
    super(message, options)
    this.blockedLibrary = options?.blockedLibrary
    this.name = 'LecternError'
    this.code = code
    this.status = ERROR_CODES[code].status
    this.exit = ERROR_CODES[code].exit
    this.extra = extra
  }

  toBody(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extra }
  }
}

export function isLecternError(err: unknown): err is LecternError {
  return err instanceof LecternError
}

export const validationError = (message: string) => new LecternError('validation_error', message)

/** How long a client waits before asking again while the database cannot be reached. */
export const DATABASE_RETRY_SECONDS = 5

/** A request (or command) that needed the database while it could not be reached; said without internals. */
export function databaseUnreachable(cause?: unknown): LecternError {
  return new LecternError(
    'database_unreachable',
    `The database cannot be reached right now; retry in ${DATABASE_RETRY_SECONDS} seconds. Answers that need no database keep working, and the server reconnects by itself.`,
    { retryAfter: DATABASE_RETRY_SECONDS },
    cause === undefined ? undefined : { cause },
  )
}
