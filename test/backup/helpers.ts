/** Shared pieces of the backup tests: admin sessions, seeded data dirs, and archive surgery. */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import * as tar from 'tar'
import { expect } from 'vitest'
import type { Manifest } from '../../src/backup/manifest.js'
import { saveEmbedding } from '../../src/embed/pool.js'
import type { EmbedderSettings } from '../../src/embed/types.js'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { tmpDir, type Defer } from '../helpers/tmp.js'

export const PASSWORD = 'correct horse battery staple'

/** Logs in as a freshly created user of that role and returns the Cookie header. */
export async function sessionCookie(app: FastifyInstance, role: 'admin' | 'member'): Promise<string> {
  const email = `${role}-${Math.random().toString(36).slice(2)}@example.com`
  await app.runtime.store.users.create({ email, password: PASSWORD, role })
  const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password: PASSWORD } })
  expect(res.statusCode).toBe(200)
  const cookie = res.cookies.find((c) => c.name === 'lectern_session')
  return `lectern_session=${cookie!.value}`
}

/**
 * An app on a fresh data dir with two small libraries; no worker, so nothing changes under a test.
 * Both are hash-embedded (no vector index) unless `gadgetsEmbedding` names another embedder.
 */
export async function seededApp(opts: { defer?: Defer; startWorker?: boolean; gadgetsEmbedding?: EmbedderSettings } = {}): Promise<FastifyInstance> {
  const app = await buildTestApp({ startWorker: opts.startWorker ?? false, ...(opts.defer ? { defer: opts.defer } : {}) })
  await seedLibrary(app, '/acme/widgets', { 'README.md': '# Widgets\n\n## Install\n\nRun `npm install widgets` to install.\n\n```js\nwidgets.render()\n```\n' })
  if (opts.gadgetsEmbedding) await saveEmbedding(app.runtime.store, opts.gadgetsEmbedding)
  await seedLibrary(app, '/acme/gadgets', { 'README.md': '# Gadgets\n\n## Usage\n\nCall `gadget.spin()` to spin.\n\n```js\ngadget.spin({ fast: true })\n```\n' })
  return app
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex')

/** Unpacks an archive (trusted: our own) into a fresh dir. */
export async function unpack(archive: string): Promise<string> {
  const dir = await tmpDir('lectern-unpack-')
  await tar.x({ file: archive, cwd: dir })
  return dir
}

/**
 * Packs `dir` into `out` with members in the given order; with `reseal`, the manifest's sizes
 * and checksums are recomputed first (for archives that must pass the checksum step).
 */
export async function repack(dir: string, out: string, opts: { members?: string[]; reseal?: boolean; edit?: (m: Manifest) => void } = {}): Promise<void> {
  const manifestFile = path.join(dir, 'manifest.json')
  if (opts.reseal || opts.edit) {
    const manifest = JSON.parse(await fsp.readFile(manifestFile, 'utf8')) as Manifest
    opts.edit?.(manifest)
    if (opts.reseal) {
      for (const member of manifest.members) {
        const data = await fsp.readFile(path.join(dir, member.path))
        member.size = data.length
        member.sha256 = sha256(data)
      }
    }
    await fsp.writeFile(manifestFile, JSON.stringify(manifest))
  }
  const manifest = JSON.parse(await fsp.readFile(manifestFile, 'utf8')) as Manifest
  const members = opts.members ?? ['manifest.json', ...manifest.members.map((m) => m.path)]
  await tar.c({ gzip: true, cwd: dir, file: out, portable: true }, members)
}

/**
 * Every file under `dir` with its sha256, to prove a refused restore changed nothing. The empty
 * file the data-directory lock is taken on is not data: a restore creates it to take the lock.
 */
export function fingerprintDir(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (sub: string) => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.join(sub, entry.name)
      if (rel === 'lectern.lock.db') continue
      if (entry.isDirectory()) walk(rel)
      else out[rel] = sha256(fs.readFileSync(path.join(dir, rel)))
    }
  }
  walk('')
  return out
}
