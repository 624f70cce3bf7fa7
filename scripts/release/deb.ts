/**
 * lectern_<version>_amd64.deb, built with dpkg-deb from the release's own tree (the same files as
 * the tarball) and the control files in packaging/debian/:
 *
 *   /opt/lectern/                     the release tree: program, dependencies, Node runtime
 *   /usr/bin/lectern                  a link to /opt/lectern/bin/lectern
 *   /lib/systemd/system/lectern.service   deploy/lectern.service, enabled at install, not started
 *   /etc/lectern/lectern.yaml         deploy/lectern.yaml, a conffile
 *   /etc/lectern/lectern.env          secrets, made by postinst (0640 root:lectern), kept on upgrade
 *   /var/lib/lectern                  the data directory, made by postinst; removed on purge only
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { execa } from 'execa'
import { filesUnder } from './checksums.js'

export interface DebInput {
  stage: string
  work: string
  out: string
  version: string
  projectRoot: string
}

export async function buildDeb({ stage, work, out, version, projectRoot }: DebInput): Promise<string> {
  const packaging = path.join(projectRoot, 'packaging', 'debian')
  const root = path.join(work, 'deb')
  const at = (file: string) => path.join(root, file)
  const place = (source: string, target: string, mode: number) => {
    fs.mkdirSync(path.dirname(at(target)), { recursive: true })
    fs.copyFileSync(source, at(target))
    fs.chmodSync(at(target), mode)
  }
  const write = (target: string, data: string | Buffer, mode = 0o644) => {
    fs.mkdirSync(path.dirname(at(target)), { recursive: true })
    fs.writeFileSync(at(target), data, { mode })
    fs.chmodSync(at(target), mode)
  }

  fs.rmSync(root, { recursive: true, force: true })
  fs.mkdirSync(at('opt'), { recursive: true })
  fs.cpSync(stage, at('opt/lectern'), { recursive: true })
  fs.mkdirSync(at('usr/bin'), { recursive: true })
  fs.symlinkSync('/opt/lectern/bin/lectern', at('usr/bin/lectern'))
  place(path.join(projectRoot, 'deploy', 'lectern.service'), 'lib/systemd/system/lectern.service', 0o644)
  place(path.join(projectRoot, 'deploy', 'lectern.yaml'), 'etc/lectern/lectern.yaml', 0o644)
  place(path.join(packaging, 'copyright'), 'usr/share/doc/lectern/copyright', 0o644)
  place(path.join(packaging, 'lintian-overrides'), 'usr/share/lintian/overrides/lectern', 0o644)
  const controlTemplate = fs.readFileSync(path.join(packaging, 'control'), 'utf8')
  const maintainer = /^Maintainer: (.+)$/m.exec(controlTemplate)![1]!
  write('usr/share/doc/lectern/changelog.gz', gzipSync(changelog(version, maintainer), { level: 9 }))
  write('usr/share/man/man1/lectern.1.gz', gzipSync(fs.readFileSync(path.join(packaging, 'lectern.1')), { level: 9 }))

  const installedKiB = Math.ceil(filesUnder(root).reduce((sum, file) => sum + fs.statSync(at(file)).size, 0) / 1024)
  const md5sums = filesUnder(root)
    .filter((file) => !file.startsWith('etc/'))
    .map((file) => `${createHash('md5').update(fs.readFileSync(at(file))).digest('hex')}  ${file}`)
  const control = controlTemplate.replace('@VERSION@', version).replace('@INSTALLED_SIZE@', String(installedKiB))
  write('DEBIAN/control', control)
  write('DEBIAN/md5sums', `${md5sums.join('\n')}\n`)
  place(path.join(packaging, 'conffiles'), 'DEBIAN/conffiles', 0o644)
  for (const script of ['postinst', 'prerm', 'postrm']) place(path.join(packaging, script), `DEBIAN/${script}`, 0o755)

  const deb = path.join(out, `lectern_${version}_amd64.deb`)
  await execa('dpkg-deb', ['--root-owner-group', '-Zgzip', '--build', root, deb])
  return deb
}

/** A native package's changelog: one entry for the version, dated SOURCE_DATE_EPOCH when set (reproducible builds), else now. */
function changelog(version: string, maintainer: string): string {
  const epoch = Number(process.env.SOURCE_DATE_EPOCH ?? Math.floor(Date.now() / 1000))
  const date = new Date(epoch * 1000).toUTCString().replace('GMT', '+0000')
  return `lectern (${version}) stable; urgency=medium\n\n  * Release ${version}.\n\n -- ${maintainer}  ${date}\n`
}
