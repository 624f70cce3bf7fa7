/**
 * A command run as root on a data directory that belongs to another user (the Debian package's
 * `lectern`) is refused before it opens anything: the database, its WAL, the key or an archive it
 * wrote as root would lock that user's server out (EACCES at its next start). Root's own data
 * directories, and every non-root user, are not concerned.
 */
import fs from 'node:fs'
import { LecternError } from './errors.js'

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

export function refuseRootOnForeignDataDir(root: string, command: string, euid = process.geteuid?.()): void {
  if (euid !== 0) return
  const owner = fs.statSync(root, { throwIfNoEntry: false })?.uid
  if (owner === undefined || owner === 0) return
  const name = userName(owner)
  const as = name ?? `#${owner}`
  throw new LecternError(
    'forbidden',
    `${root} belongs to ${name ? `the user ${name}` : `uid ${owner}`}: run this command as that user (sudo -u ${as} lectern ${command} ...), since files it wrote as root would lock that user's server out.`,
  )
}
