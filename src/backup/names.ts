/**
 * Archive names: `lectern-backup-YYYY-MM-DDTHH-MM-SS.tar.gz` in UTC. Only names matching this
 * pattern are ever listed, downloaded, pruned or restored, so a stray file in a destination (or a
 * crafted `..` name in a URL) can never be touched.
 */
export const ARCHIVE_PATTERN = /^lectern-backup-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})\.tar\.gz$/

export function isArchiveName(name: string): boolean {
  return ARCHIVE_PATTERN.test(name)
}

export function archiveName(at: Date): string {
  const stamp = at.toISOString().slice(0, 19).replaceAll(':', '-')
  return `lectern-backup-${stamp}.tar.gz`
}

/** The UTC time an archive name carries; names sort by it as plain strings too. */
export function archiveTime(name: string): Date | undefined {
  const m = ARCHIVE_PATTERN.exec(name)
  return m ? new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`) : undefined
}

/** The hidden name an archive is written under until it is complete and fsynced. */
export const partialName = (name: string): string => `.${name}.partial`

/** Partials of any archive; a backup sweeps these before writing its own. */
export const PARTIAL_PATTERN = /^\.lectern-backup-.*\.tar\.gz\.partial$/
