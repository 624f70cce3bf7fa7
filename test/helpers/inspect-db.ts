/** A read-only look at a data directory's database, as an operator's sqlite3 shell would take. */
import { join } from 'node:path'
import Database from 'better-sqlite3'

export function inspect<T>(dataDir: string, read: (db: Database.Database) => T): T {
  const db = new Database(join(dataDir, 'lectern.db'), { readonly: true, fileMustExist: true })
  try {
    return read(db)
  } finally {
    db.close()
  }
}
