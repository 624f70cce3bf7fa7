/**
 * Backup schedules: a preset or a 5-field cron expression in a time zone. Validation refuses what
 * node-cron would accept but never fire (`0 0 31 2 *`), so a saved schedule always runs.
 */
import { Cron } from 'croner'
import cron, { type ScheduledTask } from 'node-cron'
import { validationError } from '../errors.js'

export const SCHEDULE_PRESETS = {
  daily: '0 2 * * *',
  'every-6-hours': '0 */6 * * *',
  weekly: '0 3 * * 0',
} as const

export interface Schedule {
  /** A preset name or a 5-field cron expression. */
  expression: string
  timeZone: string
}

/** The cron expression a schedule runs on; throws `validation_error` naming the problem. */
export function validateSchedule(schedule: Schedule): string {
  const expression = schedule.expression.trim()
  const cronText = (SCHEDULE_PRESETS as Record<string, string>)[expression] ?? expression
  const fields = cronText.split(/\s+/)
  if (fields.length !== 5) {
    throw validationError(`Schedule "${expression}" is neither a preset (${Object.keys(SCHEDULE_PRESETS).join(', ')}) nor a 5-field cron expression.`)
  }
  if (!cron.validate(cronText)) throw validationError(`Schedule "${expression}" is not a valid cron expression.`)
  const days = expandField(fields[2]!, 1, 31)
  const months = expandField(fields[3]!, 1, 12, MONTH_NAMES)
  if (!days || !months) throw validationError(`Schedule "${expression}" is not a valid cron expression.`)
  if (!months.some((month) => days.some((day) => day <= DAYS_IN_MONTH[month - 1]!))) {
    throw validationError(`Schedule "${expression}" names no date that exists (day ${fields[2]} of month ${fields[3]}).`)
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: schedule.timeZone })
  } catch {
    throw validationError(`Unknown time zone "${schedule.timeZone}"; use an IANA name such as UTC or Europe/Berlin.`)
  }
  return cronText
}

/**
 * The next `count` times a schedule fires, after `from`. node-cron cannot say when it will fire
 * next, so croner computes them, told to match a day as node-cron does: by both day of month
 * and day of week (croner's default, like Vixie cron, is either).
 */
export function nextRuns(schedule: Schedule, count: number, from: Date = new Date()): string[] {
  const cronText = validateSchedule(schedule)
  const pattern = new Cron(cronText, { timezone: schedule.timeZone, domAndDow: true, paused: true })
  return pattern.nextRuns(count, from).map((date) => date.toISOString())
}

/** February counts 29: a schedule on the 29th still fires in leap years. */
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

/** The values a cron field selects, or undefined when a part is not understood. */
function expandField(field: string, min: number, max: number, names: string[] = []): number[] | undefined {
  const values = new Set<number>()
  const value = (text: string) => {
    const named = names.indexOf(text.toLowerCase())
    return named >= 0 ? named + min : /^\d+$/.test(text) ? Number(text) : Number.NaN
  }
  for (const part of field.split(',')) {
    const [range, stepText] = part.split('/')
    const step = stepText === undefined ? 1 : Number(stepText)
    let [from, to] = [min, max]
    if (range !== '*') {
      const [a, b] = range!.split('-')
      from = value(a!)
      to = b === undefined ? (stepText === undefined ? from : max) : value(b)
    }
    if (![from, to, step].every(Number.isInteger) || step < 1 || from < min || to > max || from > to) return undefined
    for (let v = from; v <= to; v += step) values.add(v)
  }
  return [...values]
}

export interface Scheduler {
  /** Re-reads the schedule (after a config change) and replaces the running timer. */
  reload(): Promise<void>
  stop(): void
}

/** How often the stored schedule is read again: a settings row, cheap enough every second. */
export const SCHEDULE_POLL_MS = 1000

/**
 * Runs `fire` on the configured schedule. `read` is called at start, on reload and every second,
 * so a schedule changed in another process (`lectern backup config set`, or the dashboard served
 * by another worker of `serve --workers`) takes effect within a second, without a restart. An
 * invalid stored schedule is logged and ignored, never a crash.
 */
export function startScheduler(
  read: () => Promise<Schedule | null> | Schedule | null,
  fire: () => void,
  log: { warn(obj: object, msg: string): void },
  /** What runs on it, for the log: `backup`, `GitOps sync`. */
  what = 'backup',
): Scheduler {
  let task: ScheduledTask | undefined
  let current = ''
  let stopped = false
  let unreadable = false
  const reload = async () => {
    let schedule: Schedule | null
    try {
      schedule = await read()
      unreadable = false
    } catch (err) {
      // The database is out of reach for a moment: the running timer stays, and the next poll retries.
      if (!unreadable) log.warn({ err }, `could not read the ${what} schedule; the current one stays until it can be read`)
      unreadable = true
      return
    }
    const key = JSON.stringify(schedule)
    if (stopped || key === current) return
    current = key
    task?.stop()
    task = undefined
    if (!schedule) return
    try {
      task = cron.schedule(validateSchedule(schedule), fire, { timezone: schedule.timeZone })
    } catch (err) {
      log.warn({ err, schedule }, `the stored ${what} schedule is invalid; it is off until it is fixed`)
    }
  }
  void reload()
  const poll = setInterval(() => void reload(), SCHEDULE_POLL_MS)
  poll.unref()
  return {
    reload,
    stop() {
      stopped = true
      clearInterval(poll)
      task?.stop()
      task = undefined
    },
  }
}
