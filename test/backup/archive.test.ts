import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import Database from 'better-sqlite3'
import { execa } from 'execa'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createArchive } from '../../src/backup/archive.js'
import type { Manifest } from '../../src/backup/manifest.js'
import { BackupRunner } from '../../src/backup/runner.js'
import { openStore, sqliteOf } from '../../src/store/index.js'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { pollUntil } from '../helpers/poll.js'
import { tmpDir } from '../helpers/tmp.js'
import { ollamaStandIn } from '../airgap/ollama-standin.js'
import { seededApp, unpack } from './helpers.js'

const quietLog = { info: () => {}, warn: () => {}, error: () => {} }

/** A separate process committing pairs of settings rows as fast as it can, until killed. */
function startWriter(database: string) {
  const script = `
    const Database = require('better-sqlite3')
    const db = new Database(process.argv[1]); db.pragma('busy_timeout = 5000'); db.pragma('journal_mode = WAL')
    const put = db.prepare("INSERT INTO settings (key, value, updated_at) VALUES (?, '1', 'now')")
    const pair = db.transaction((n) => { put.run('load.' + String(n).padStart(8, '0')); put.run('load.' + String(n + 1).padStart(8, '0')) })
    for (let n = 0; ; n += 2) pair(n)`
  const child = execa('node', ['-e', script, database], { cwd: PROJECT_ROOT, reject: false })
  onTestFinished(async () => {
    child.kill('SIGKILL')
    await child
  })
  return child
}

describe('backup archive', () => {
  it('holds a consistent snapshot under concurrent writes from another process: integrity_check ok, row counts match', async () => {
    // Gadgets embedded by Ollama (a loopback stand-in) has a vector index; hash-embedded widgets has none.
    const ollama = await ollamaStandIn(16)
    onTestFinished(() => ollama.close())
    const app = await seededApp({ gadgetsEmbedding: ollama.settings })
    const { store } = app.runtime
    const writer = startWriter(store.paths.database)
    await pollUntil('the writer to commit', () => (sqliteOf(store).prepare("SELECT count(*) AS n FROM settings WHERE key LIKE 'load.%'").get() as { n: number }).n > 200 || undefined)
    const out = await tmpDir()
    const archive = await createArchive(store, out)
    writer.kill('SIGKILL')

    expect(archive.name).toMatch(/^lectern-backup-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.tar\.gz$/)
    expect(fs.statSync(archive.file).mode & 0o777).toBe(0o600)
    expect(fs.readdirSync(out)).toEqual([archive.name])
    const dir = await unpack(archive.file)
    const db = new Database(path.join(dir, 'lectern.db'), { readonly: true })
    onTestFinished(() => void db.close())
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
    // Pairs are committed in one transaction each: a consistent snapshot holds whole pairs, 0..n-1.
    const load = db.prepare("SELECT count(*) AS n, max(key) AS last FROM settings WHERE key LIKE 'load.%'").get() as { n: number; last: string }
    expect(load.n % 2).toBe(0)
    expect(Number(load.last.slice(5))).toBe(load.n - 1)
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest
    for (const table of ['snippets', 'libraries', 'library_versions', 'snippet_sets']) {
      const live = (sqliteOf(store).prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
      expect((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n, table).toBe(live)
    }
    expect(manifest.libraries.map((l) => [l.id, l.partial])).toEqual([['/acme/gadgets', false], ['/acme/widgets', false]])
    const gadgets = (await store.libraries.version((await store.libraries.byId('/acme/gadgets'))!.pk, ''))!.currentSet!
    expect(manifest.vectors).toEqual([{ setPk: gadgets, count: await store.snippets.count(gadgets) }])
    expect(manifest.members.map((m) => m.path).sort()).toEqual(
      ['lectern.db', 'secret.key', ...manifest.vectors.flatMap((v) => [`vectors/set-${v.setPk}.usearch`, `vectors/set-${v.setPk}.usearch.json`])].sort(),
    )
    expect(manifest.migrations.at(-1)).toBeTruthy()
  })

  it('marks a library that a queued or running job was changing as partial', async () => {
    const app = await seededApp()
    const { store } = app.runtime
    const widgets = (await store.libraries.byId('/acme/widgets'))!
    sqliteOf(store).prepare("INSERT INTO jobs (kind, library_pk, state, created_at) VALUES ('git', ?, 'running', 'now')").run(widgets.pk)
    const archive = await createArchive(store, await tmpDir())
    expect(archive.manifest.libraries.find((l) => l.id === '/acme/widgets')?.partial).toBe(true)
    expect(archive.manifest.libraries.find((l) => l.id === '/acme/gadgets')?.partial).toBe(false)
    const result = await (await new BackupRunner(store, quietLog).start({ trigger: 'manual', target: await tmpDir() })).done
    expect(result.partialLibraries).toEqual(['/acme/widgets'])
  })

  it('on a full disk (ENOSPC on a tiny tmpfs) leaves no archive and the previous ones intact', async (ctx) => {
    const mountPoint = await tmpDir('lectern-tmpfs-')
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mountPoint], { stdio: 'ignore' })
    } catch {
      ctx.skip('cannot mount a tmpfs here (needs root)')
    }
    onTestFinished(() => void execFileSync('umount', [mountPoint]))
    const app = await seededApp()
    const runner = new BackupRunner(app.runtime.store, quietLog)
    const first = await (await runner.start({ trigger: 'manual', target: mountPoint })).done
    const before = fs.readFileSync(path.join(mountPoint, first.name!))
    // Leave less room than an archive needs.
    const { bavail, bsize } = await fsp.statfs(mountPoint)
    fs.writeFileSync(path.join(mountPoint, 'filler'), Buffer.alloc(Math.max(0, bavail * bsize - 4096)))
    await new Promise((resolve) => setTimeout(resolve, 1100))
    await expect((await runner.start({ trigger: 'manual', target: mountPoint })).done).rejects.toThrow(/ENOSPC|no space/i)
    expect(fs.readdirSync(mountPoint).sort()).toEqual(['filler', first.name].sort())
    expect(fs.readFileSync(path.join(mountPoint, first.name!)).equals(before)).toBe(true)
    expect((await runner.status()).last).toMatchObject({ ok: false })
    expect(fs.existsSync(app.runtime.store.paths.backupWork)).toBe(false)
  })

  it('killed with SIGKILL mid-write leaves no final-named archive, and the next backup sweeps the partial', async () => {
    const dataDir = await tmpDir('lectern-data-')
    const store = await openStore(dataDir)
    // About 16 MB that gzip cannot shrink, so the archive takes a while to write.
    const put = sqliteOf(store).prepare('INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)')
    sqliteOf(store).transaction(() => {
      for (let i = 0; i < 16; i++) put.run(`bulk.${i}`, JSON.stringify(randomBytes(1 << 20).toString('base64')), 'now')
    })()
    await store.close()
    const out = await tmpDir()
    const child = execa('node', ['bin/run.js', 'backup', '--data-dir', dataDir, '--to', out], { cwd: PROJECT_ROOT, reject: false })
    await pollUntil('a partial archive to appear', () => (fs.readdirSync(out).some((f) => f.endsWith('.partial')) ? true : undefined), 30_000)
    child.kill('SIGKILL')
    await child
    const left = fs.readdirSync(out)
    expect(left.some((f) => f.endsWith('.partial'))).toBe(true)
    expect(left.filter((f) => f.endsWith('.tar.gz'))).toEqual([])

    const reopened = await openStore(dataDir)
    onTestFinished(() => reopened.close())
    const result = await (await new BackupRunner(reopened, quietLog).start({ trigger: 'manual', target: out })).done
    expect(fs.readdirSync(out)).toEqual([result.name])
  })
})
