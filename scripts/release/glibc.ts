/**
 * The oldest C and C++ libraries a release runs on. Node itself needs glibc 2.28, but the native
 * modules need more: better-sqlite3 is compiled on the build host, and usearch's prebuilt addon
 * is built against glibc 2.34. The README and the Debian package's Depends state this floor, and
 * the release refuses to ship a binary that needs more (a build host newer than Debian 12 would
 * raise it silently otherwise).
 */
import { execa } from 'execa'

export const GLIBC_FLOOR = '2.34'
/** The libstdc++ symbol version of GCC 11, the C++ library Debian 12 and Ubuntu 22.04 ship. */
export const GLIBCXX_FLOOR = '3.4.29'

const newer = (a: string, b: string) => {
  const [x, y] = [a.split('.').map(Number), b.split('.').map(Number)]
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0)
  return false
}

/** The highest GLIBC_ and GLIBCXX_ symbol versions `binaries` need; throws naming any binary above the floor. */
export async function checkLibcFloor(binaries: string[]): Promise<{ glibc: string; glibcxx: string }> {
  let glibc = '0'
  let glibcxx = '0'
  const over: string[] = []
  for (const binary of binaries) {
    const { stdout } = await execa('objdump', ['-T', binary])
    for (const [, lib, version] of stdout.matchAll(/\b(GLIBCXX|GLIBC)_(\d+(?:\.\d+)+)\b/g)) {
      const floor = lib === 'GLIBC' ? GLIBC_FLOOR : GLIBCXX_FLOOR
      if (newer(version!, floor)) over.push(`${binary} needs ${lib}_${version}`)
      if (lib === 'GLIBC' && newer(version!, glibc)) glibc = version!
      if (lib === 'GLIBCXX' && newer(version!, glibcxx)) glibcxx = version!
    }
  }
  if (over.length > 0) throw new Error(`Binaries need a newer C library than the release promises (glibc ${GLIBC_FLOOR}, GLIBCXX ${GLIBCXX_FLOOR}): ${[...new Set(over)].join('; ')}`)
  return { glibc, glibcxx }
}
