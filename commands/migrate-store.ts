import { Flags } from '@oclif/core'
import { LecternCommand } from '../cli/run.js'
import { withoutPassword } from '../src/config.js'
import { requireExistingData } from '../src/install/data-dir.js'
import { dataPaths } from '../src/install/paths.js'
import { LecternError } from '../src/errors.js'
import { secretKeyFromEnv } from '../src/secrets/key.js'
import { openStore } from '../src/store/index.js'
import { acquireDataDirLock } from '../src/store/lock.js'
import type { MigrateStoreResult } from '../src/store/migrate-store.js'

type MigrateStoreOutput = MigrateStoreResult & { from: string; to: string }

export default class MigrateStore extends LecternCommand {
  static override summary = "Copy an install on SQLite (this data directory) into an empty PostgreSQL database, checking every row: the way to grow to several replicas."
  static override description = `Stop the server first: the data directory is copied under its lock. Every row of its database and the files its jobs read (uploaded specs, staged imports) go into the database --to names (else DATABASE_URL), in one transaction that commits only once every table's row count and checksum, read back from PostgreSQL, equal SQLite's. A failure leaves the target without rows; the data directory is never changed, so it stays the way back.

The target must hold no data: a new database, or one this command migrated but left without rows. LECTERN_SECRET_KEY must be the data directory's own key (its secret.key in hex), as every replica will need it; the command checks it and never prints it. Put the database password in PGPASSWORD rather than in the URL, where other users of the host see it in the process list.

Then start the replicas with DATABASE_URL and LECTERN_SECRET_KEY (docs/scaling.md). Vector indexes are not copied: each replica builds its own from the vectors stored with the snippets, and re-embeds a set stored before vectors were (with the embedder configured).`
  static override examples = [
    'LECTERN_SECRET_KEY=$(od -An -vtx1 /var/lib/lectern/secret.key | tr -d \' \\n\') <%= config.bin %> <%= command.id %> --to postgres://lectern@db.internal/lectern --data-dir /var/lib/lectern',
    '<%= config.bin %> <%= command.id %> --json',
  ]
  static override enableJsonFlag = true
  static override flags = {
    to: Flags.string({ summary: 'URL of the PostgreSQL database to copy into (default: DATABASE_URL).', helpValue: 'postgres://user@host/db' }),
  }

  async run(): Promise<MigrateStoreOutput> {
    const { flags } = await this.parse(MigrateStore)
    const resolved = this.resolveConfig(flags)
    const url = flags.to ?? resolved.config.database.url
    if (!url) throw new LecternError('validation_error', 'Name the PostgreSQL database to copy into with --to postgres://user@host/db (or DATABASE_URL).')
    if (!isPostgresUrl(url)) throw new LecternError('validation_error', `--to must be a postgres:// URL naming a host (or a socket directory in ?host=), not ${JSON.stringify(withoutPassword(url))}.`)
    const paths = dataPaths(resolved.config.dataDir)
    requireExistingData({ ...resolved, config: { ...resolved.config, database: { ...resolved.config.database, url: '' } } }, this.commandLine())
    const key = keyOfTarget(paths.secretKey)
    const to = withoutPassword(url)
    const lock = acquireDataDirLock(paths.lock, paths.root)
    const progress = this.progress(`Opening ${paths.root}`).start()
    try {
      // Opened as a start opens it: an interrupted restore finished, the schema migrated to this build's.
      await (await openStore(paths.root)).close()
      const { migrateStore } = await import('../src/store/migrate-store.js')
      const result = await migrateStore(paths, { url, shownAs: to, key, progress: (message) => (progress.text = message) })
      progress.succeed(
        `Copied ${result.rows.toLocaleString('en-US')} rows in ${result.tables.length} tables and ${result.files.length} file${result.files.length === 1 ? '' : 's'} into ${to}; every count and checksum matches. ` +
          `Start the replicas with DATABASE_URL and this LECTERN_SECRET_KEY; ${paths.root} is unchanged.`,
      )
      return { from: paths.database, to, ...result }
    } catch (err) {
      progress.fail('Nothing was copied')
      throw err
    } finally {
      lock.release()
    }
  }
}

/** A postgres:// URL with a host, or a Unix socket directory as `?host=` (as libpq takes them). */
function isPostgresUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'postgres:' || url.protocol === 'postgresql:') && (url.hostname !== '' || (url.searchParams.get('host') ?? '') !== '')
  } catch {
    return false
  }
}

/** LECTERN_SECRET_KEY, which must be given (and be the data directory's key, checked by migrateStore). */
function keyOfTarget(secretKeyFile: string): Buffer {
  if (!process.env.LECTERN_SECRET_KEY?.trim()) {
    throw new LecternError(
      'validation_error',
      `LECTERN_SECRET_KEY is required: the replicas open this install's secrets with the data directory's key. Set it to ${secretKeyFile} in hex, e.g. LECTERN_SECRET_KEY=$(od -An -vtx1 ${secretKeyFile} | tr -d ' \\n'), and keep it in your secret store for every replica.`,
    )
  }
  return secretKeyFromEnv(process.env)
}
