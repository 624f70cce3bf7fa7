/**
 * A job's own log: every line its JobLog receives is also kept with the job (store/job-logs.ts),
 * for `GET /api/jobs/:id/log` and the dashboard, from whichever process asks.
 *
 * Guarantee: no secret reaches it. Values under secret-looking keys (token, password, secret,
 * authorization, cookie, API key) are replaced; text is redacted as git's output is
 * (sources/git.ts: credentials in URLs, Authorization headers) and the job's own token is cut
 * out wherever it appears, in every form git could echo it.
 *
 * Lines are written in batches (BATCH_LINES, or FLUSH_MS after the first line of a batch), so a
 * job that logs a line per skipped file commits a transaction per batch, not per line. A batch
 * the database refuses (a full disk) is dropped and said once in the process's log; the job
 * goes on.
 */
import { likelyCause } from '../install/disk-full.js'
import { redact } from '../sources/git.js'
import type { Store } from '../store/index.js'
import type { JobLogLevel, NewJobLogLine } from '../store/job-logs.js'

/** Where the recorder says that it could not keep lines: the process's own log. */
interface ProcessLog {
  error(obj: object, msg: string): void
}

const BATCH_LINES = 100
const FLUSH_MS = 500
const MAX_MESSAGE_CHARS = 2000
const MAX_VALUE_CHARS = 1000
/** Nesting kept in a line's fields; deeper values are summarised. */
const MAX_DEPTH = 4
const MAX_ITEMS = 50

/** `gitToken`, `accessToken`, `password`, `clientSecret`, `apiKey`...; not a count such as `tokens`. */
const SECRET_KEY = /token$|passw|secret|authori[sz]ation|cookie|api[-_]?key|credential/i
const REDACTED = '[redacted]'

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text)

/** A JobLog (worker.ts) that keeps the lines with the job. */
export class JobLogRecorder {
  private pending: NewJobLogLine[] = []
  private timer: NodeJS.Timeout | undefined
  private dropping = false
  /** The writes under way, in order; never rejects (write catches). */
  private writing: Promise<void> = Promise.resolve()

  /**
   * `own`: the keys the worker adds to every line (job ID, kind, library), left out here since
   * the lines are the job's. `token`: the job's plain token, if it has one, cut out of every line.
   */
  constructor(
    private readonly store: Store,
    private readonly jobPk: number,
    private readonly processLog: ProcessLog,
    private readonly own: ReadonlySet<string>,
    private readonly token: string | undefined,
  ) {}

  info(obj: object, msg: string): void {
    this.add('info', obj, msg)
  }

  warn(obj: object, msg: string): void {
    this.add('warn', obj, msg)
  }

  error(obj: object, msg: string): void {
    this.add('error', obj, msg)
  }

  /**
   * Writes what is pending; awaited when the job ends, so its last lines are there when it shows
   * as ended. Writes go one after the other, so lines are stored in the order they were logged.
   */
  flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    const lines = this.pending
    this.pending = []
    if (lines.length > 0) this.writing = this.writing.then(() => this.write(lines))
    return this.writing
  }

  private async write(lines: readonly NewJobLogLine[]): Promise<void> {
    try {
      await this.store.jobLogs.append(this.jobPk, lines)
      this.dropping = false
    } catch (err) {
      if (!this.dropping) this.processLog.error({ err, jobId: this.jobPk, lines: lines.length }, `could not keep the job's log lines (${likelyCause(err)}); they are dropped`)
      this.dropping = true
    }
  }

  private add(level: JobLogLevel, obj: object, msg: string): void {
    const fields = this.clean(Object.fromEntries(Object.entries(obj).filter(([key]) => !this.own.has(key))), 0) as Record<string, unknown>
    this.pending.push({ time: new Date().toISOString(), level, message: clip(this.text(msg), MAX_MESSAGE_CHARS), fields })
    if (this.pending.length >= BATCH_LINES) void this.flush()
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS)
      this.timer.unref()
    }
  }

  private text(value: string): string {
    return redact(value, this.token)
  }

  private clean(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return clip(this.text(value), MAX_VALUE_CHARS)
    if (typeof value === 'bigint') return String(value)
    if (value === null || typeof value !== 'object') return typeof value === 'function' || typeof value === 'symbol' ? undefined : value
    if (depth >= MAX_DEPTH) return '[…]'
    if (value instanceof Error) {
      const code = (value as { code?: unknown }).code
      return { type: value.name, message: clip(this.text(value.message), MAX_VALUE_CHARS), ...(typeof code === 'string' ? { code } : {}) }
    }
    if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((item) => this.clean(item, depth + 1))
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(value).slice(0, MAX_ITEMS)) out[key] = SECRET_KEY.test(key) ? REDACTED : this.clean(inner, depth + 1)
    return out
  }
}
