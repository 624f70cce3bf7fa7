/**
 * Which data directory a command works on, and the checks before it opens it. Only `lectern
 * serve` (and `lectern restore`) create a data directory: any other command pointed at a folder
 * without Lectern data is refused, saying where it looked and why, instead of silently starting
 * a second install there whose keys the running server would refuse.
 *
 * Root on a data directory that belongs to another user (the Debian package's `lectern`) is
 * refused too: the database, its WAL, the key or an archive written as root would lock that
 * user's server out (EACCES at its next start). Root's own data directories, and every non-root
 * user, are not concerned.
 */
import fs from 'node:fs'
import path from 'node:path'
import { SYSTEM_DATA_DIR, type ResolvedConfig } from '../config.js'
import { LecternError } from '../errors.js'
import { makeDirectory } from './make-dir.js'
import { dataPaths } from './paths.js'

/** The name /etc/passwd gives a uid, if any. */
function userName(uid: number): string | undefined {
  try {
    return fs
      .readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((line) => line.split(':'))
      .find((fields) => Number(fields[2]) === uid && fields[2] !== '')?.[0]
  } catch {
    return undefined
  }
}

/** How `sudo -u` names the owner of a path: by name, else by uid. */
function ownerOf(target: string): { uid: number; sudoName: string; said: string } | undefined {
  let uid: number
  try {
    uid = fs.statSync(target).uid
  } catch {
    // Nothing there yet, or a file in the way (ENOTDIR): no owner, and whoever creates it says why it cannot.
    return undefined
  }
  const name = userName(uid)
  return { uid, sudoName: name ?? `#${uid}`, said: name ? `the user ${name}` : `uid ${uid}` }
}

export function refuseRootOnForeignDataDir(root: string, command: string, euid = process.geteuid?.()): void {
  if (euid !== 0) return
  const owner = ownerOf(root)
  if (!owner || owner.uid === 0) return
  throw new LecternError(
    'forbidden',
    `${root} belongs to ${owner.said}: run this command as that user (sudo -u ${owner.sudoName} lectern ${command} ...), since files it wrote as root would lock that user's server out.`,
  )
}

/** Why a command uses its data directory, in words: "named by --data-dir", "the default, as /var/lib/lectern does not exist"... */
export function dataDirOrigin(resolved: ResolvedConfig): string {
  switch (resolved.sources.dataDir) {
    case 'flag':
      return 'named by --data-dir'
    case 'env':
      return 'named by LECTERN_DATA_DIR'
    case 'file':
      return `named by dataDir in ${resolved.file}`
    default: {
      if (fs.existsSync(SYSTEM_DATA_DIR)) return 'the default'
      const xdg = process.env.XDG_DATA_HOME
      return `the default, ${xdg && path.isAbsolute(xdg) ? '$XDG_DATA_HOME/lectern, ' : ''}as ${SYSTEM_DATA_DIR} does not exist`
    }
  }
}

/**
 * Refuses a command on a data directory without Lectern data (`data_dir_empty`), or one it may not
 * read (`forbidden`, naming the `sudo -u` line), before anything is created.
 */
export function requireExistingData(resolved: ResolvedConfig, command: string): void {
  // The install is the database there; the data directory holds only what is local to a replica.
  if (resolved.config.database.url !== '') return
  const paths = dataPaths(resolved.config.dataDir)
  try {
    fs.accessSync(paths.database, fs.constants.R_OK)
    return
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EACCES') {
      const owner = ownerOf(paths.root)
      const as = owner ? `as ${owner.said} (sudo -u ${owner.sudoName} lectern ${command} ...)` : 'as the user the server runs as'
      throw new LecternError('forbidden', `${paths.root} is not readable by you: run this command ${as}.`)
    }
  }
  const origin = dataDirOrigin(resolved)
  throw new LecternError(
    'data_dir_empty',
    `No Lectern data in ${paths.root} (${origin}): it has no lectern.db. ` +
      "Point the command at your install's data directory with --data-dir, LECTERN_DATA_DIR or dataDir in lectern.yaml, " +
      'or start `lectern serve` to create a new install there.',
    // What `lectern status --json` would have reported, for scripts.
    { dataDir: paths.root, dataDirOrigin: origin, configFile: resolved.file ?? null },
  )
}

/** Why a data directory could not be made, by the OS error of the path that failed. */
const CANNOT_CREATE: Record<string, string> = {
  ENOTDIR: 'a file is in the way',
  ENOENT: 'its parent cannot hold folders',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
}

/** `lectern serve`'s creation of its data directory (and missing parents), its failures said as the setting's. */
export function createDataDir(resolved: ResolvedConfig): void {
  const { root } = dataPaths(resolved.config.dataDir)
  try {
    makeDirectory(root)
  } catch (err) {
    const { code, path: failedAt } = err as NodeJS.ErrnoException
    const why = code === undefined ? undefined : CANNOT_CREATE[code]
    if (!why) throw err
    throw new LecternError(
      code === 'EACCES' || code === 'EPERM' ? 'forbidden' : 'validation_error',
      `Cannot create the data directory ${root} (${dataDirOrigin(resolved)}): ${why} (${code} at ${failedAt ?? root}). Choose another data directory, or create it with the right owner first.`,
    )
  }
}
