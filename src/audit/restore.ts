/**
 * A restore in the audit log. The log lives in the database, so a restore brings back the
 * archive's log, and the events since the archive was made (the restore's staging among them)
 * would stay behind in the database it set aside. On SQLite they are carried over from the file
 * set aside into the restored database, then the restore itself is recorded. On PostgreSQL a
 * restore replaces the database in place and keeps no copy: the events since the archive are
 * lost with it, and the restore is recorded in the restored log.
 */
import path from 'node:path'
import type { RestoreResult } from '../backup/restore.js'
import { auditEventsOfFile } from '../store/database-file.js'
import type { Store } from '../store/index.js'
import { audit, type AuditContext } from './log.js'

export async function auditRestore(store: Store, context: AuditContext, result: RestoreResult, details: Record<string, unknown>): Promise<void> {
  if (result.preRestoreDir !== null && store.database.kind === 'sqlite') {
    const newest = (await store.audit.list({}, { limit: 1 }))[0]?.at ?? ''
    const since = await auditEventsOfFile(path.join(result.preRestoreDir, path.basename(store.paths.database)), newest)
    await store.transaction(async () => {
      for (const { id: _, at, ...event } of since) await store.audit.record(event, new Date(at))
    })
  }
  await audit(store, context, 'restore.applied', result.name, details)
}
