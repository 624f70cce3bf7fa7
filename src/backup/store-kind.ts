/**
 * What a PostgreSQL install does not do from a replica: a backup schedule (every replica would
 * fire it, until schedules run once for all replicas) and a restore staged by the dashboard (the
 * replica that serves the dashboard is one the restore must not run beside). Each is refused with
 * what to do instead.
 */
import { LecternError } from '../errors.js'

export function refusePostgresStore(kind: 'sqlite' | 'postgres', action: 'schedule' | 'restore'): void {
  if (kind === 'sqlite') return
  if (action === 'schedule') {
    throw new LecternError(
      'validation_error',
      'This install keeps its store in PostgreSQL (DATABASE_URL), where a backup schedule is not run yet (every replica would run it): run `lectern backup` from one host on a timer (cron, a systemd timer, a Kubernetes CronJob) instead (docs/backup.md).',
    )
  }
  throw new LecternError(
    'restore_refused',
    'This install keeps its store in PostgreSQL (DATABASE_URL), which the dashboard does not restore into while it serves: stop every replica, then run `lectern restore <archive>` with DATABASE_URL and LECTERN_SECRET_KEY set (docs/backup.md). Nothing was changed.',
  )
}
