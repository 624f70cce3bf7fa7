/**
 * What a PostgreSQL install does not do from a replica: a restore staged by the dashboard (the
 * replica that serves the dashboard is one the restore must not run beside). It is refused with
 * what to do instead.
 */
import { LecternError } from '../errors.js'

export function refuseStagedRestore(kind: 'sqlite' | 'postgres'): void {
  if (kind === 'sqlite') return
  throw new LecternError(
    'restore_refused',
    'This install keeps its store in PostgreSQL (DATABASE_URL), which the dashboard does not restore into while it serves: stop every replica, then run `lectern restore <archive>` with DATABASE_URL and LECTERN_SECRET_KEY set (docs/backup.md). Nothing was changed.',
  )
}
