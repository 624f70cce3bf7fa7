/**
 * manifest.json, the first member of every archive: what the archive holds and how to check it.
 * Restore trusts nothing in an archive that this schema and the member checksums do not vouch for.
 */
import { z } from 'zod'

/**
 * Bumped when the archive layout changes; an archive with a higher number is refused ("upgrade
 * first"). 2 adds uploads/ members: a build that reads only 1 would restore without them. 3 is
 * the archive of a PostgreSQL store: DUMP_MEMBER in place of the database file, the key and the
 * uploads (the dump holds them; the key stays with the replicas). An SQLite store's archive is
 * still written as 2, which builds that read only 2 restore.
 */
export const FORMAT_VERSION = 3
export const SQLITE_FORMAT_VERSION = 2
export const MANIFEST_MEMBER = 'manifest.json'
export const DATABASE_MEMBER = 'lectern.db'
/** A PostgreSQL store's `pg_dump --format=custom`. */
export const DUMP_MEMBER = 'lectern.pgdump'
export const KEY_MEMBER = 'secret.key'
export const VECTORS_PREFIX = 'vectors/'
export const UPLOADS_PREFIX = 'uploads/'

/** A member path: relative, forward slashes, no `.`/`..` segments (no segment starts with a dot). */
export const SAFE_MEMBER_PATH = /^[A-Za-z0-9_][A-Za-z0-9_.-]*(\/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$/
const memberPath = z.string().regex(SAFE_MEMBER_PATH, 'not a safe relative member path')

export const ManifestSchema = z
  .object({
    formatVersion: z.number().int().positive(),
    appVersion: z.string().min(1),
    createdAt: z.string().datetime(),
    migrations: z.array(z.string().min(1)),
    keyFingerprint: z.string().regex(/^[0-9a-f]{16}$/),
    libraries: z.array(
      z.object({
        id: z.string(),
        versions: z.array(z.object({ tag: z.string(), state: z.string(), snippets: z.number().int().nonnegative() })),
        partial: z.boolean(),
      }),
    ),
    vectors: z.array(z.object({ setPk: z.number().int().positive(), count: z.number().int().nonnegative() })),
    members: z.array(z.object({ path: memberPath, size: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })),
  })
  .strict()

export type Manifest = z.infer<typeof ManifestSchema>

/** Which store the archive is of: a PostgreSQL store's holds its dump. */
export const archiveStore = (manifest: Pick<Manifest, 'members'>): 'sqlite' | 'postgres' =>
  manifest.members.some((member) => member.path === DUMP_MEMBER) ? 'postgres' : 'sqlite'
