/**
 * Backups and restores move a SQLite store: its file, secret.key and the vector files. A PostgreSQL
 * store is refused with what to do instead until Lectern dumps and restores it itself (issue 31,
 * item 9), rather than archiving the data directory's cache as if it were the install.
 */
import { LecternError } from '../errors.js'

export function refusePostgresStore(kind: 'sqlite' | 'postgres', action: 'backup' | 'restore'): void {
  if (kind === 'sqlite') return
  if (action === 'backup') {
    throw new LecternError(
      'validation_error',
      'This install keeps its store in PostgreSQL (DATABASE_URL), which Lectern does not back up yet: back the database up with pg_dump --format=custom and keep LECTERN_SECRET_KEY with it (docs/backup.md).',
    )
  }
  throw new LecternError(
    'restore_refused',
    'This install keeps its store in PostgreSQL (DATABASE_URL), which Lectern does not restore into yet: restore a pg_dump with pg_restore into an empty database (docs/backup.md). Nothing was changed.',
  )
}
