/**
 * Removing a library deletes its uploaded OpenAPI file (from uploads/, or from the database on
 * PostgreSQL), whichever way it goes:
 * `lectern libraries remove` (the real binary), the dashboard's DELETE /api/libraries, and a
 * teamspace's deletion, which removes the teamspace's libraries; other libraries' files stay.
 */
import fs from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { describe, expect, it, vi } from 'vitest'
import { dataPaths } from '../../src/install/paths.js'
import { buildTestApp } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { PETSHOP_YAML } from '../helpers/openapi-fixtures.js'
import { signIn } from '../helpers/session.js'
import { databaseOf, openInstall } from '../helpers/stores.js'
import { bearer, createTenants } from '../helpers/tenants.js'
import { tmpDataDir, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 60_000 })

/** The install's uploaded files: in uploads/, or in the database in the PostgreSQL run. */
async function uploads(dataDir: string): Promise<string[]> {
  if (databaseOf(dataDir) === undefined) return fs.readdirSync(dataPaths(dataDir).uploads).sort()
  const store = await openInstall(dataDir)
  try {
    return (await store.inputFiles.list('uploads/')).map((file) => file.name.slice('uploads/'.length))
  } finally {
    await store.close()
  }
}

async function upload(base: string, key: string, title: string): Promise<string> {
  const form = new FormData()
  form.set('openapiFile', new Blob([PETSHOP_YAML]), 'spec.yaml')
  form.set('libraryTitle', title)
  const res = await fetch(`${base}/api/v2/add/openapi-upload`, { method: 'POST', headers: bearer(key), body: form })
  const body = (await res.json()) as { libraryName: string }
  expect(res.status, JSON.stringify(body)).toBe(200)
  return body.libraryName
}

async function listening(dataDir: string): Promise<{ app: FastifyInstance; base: string }> {
  const app = await buildTestApp({ dataDir, mode: 'cloud', startWorker: false })
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` }
}

describe('removing a library with an uploaded spec', () => {
  it("deletes the file with `lectern libraries remove`, a renamed library's too", async () => {
    const dataDir = await tmpDataDir()
    const specFile = path.join(await tmpDir(), 'spec.yaml')
    await writeFile(specFile, PETSHOP_YAML)
    for (const title of ['Billing API', 'Orders API']) {
      const added = await runCli(['add', 'openapi', specFile, '--title', title, '--data-dir', dataDir])
      expect(added.exitCode, added.stderr).toBe(0)
    }
    expect(await uploads(dataDir)).toEqual(['billing-api.yaml', 'orders-api.yaml'])

    const removed = await runCli(['libraries', 'remove', '/docs/billing-api', '--yes', '--data-dir', dataDir])
    expect(removed.exitCode, removed.stderr).toBe(0)
    expect(await uploads(dataDir)).toEqual(['orders-api.yaml'])

    // A renamed library still reads its file by the old name, and takes it along when removed.
    expect((await runCli(['libraries', 'rename', '/docs/orders-api', '/docs/ledger', '--data-dir', dataDir])).exitCode).toBe(0)
    expect((await runCli(['libraries', 'remove', '/docs/ledger', '--yes', '--data-dir', dataDir])).exitCode).toBe(0)
    expect(await uploads(dataDir)).toEqual([])
  })

  it("deletes the file when the operator removes the library over HTTP, and when the teamspace is deleted", async () => {
    const dataDir = await tmpDataDir()
    const { app, base } = await listening(dataDir)
    const tenants = await createTenants(app)
    const removedByOperator = await upload(base, tenants.acme.keys.admin, 'Spec')
    const keptUntilTeamDeletion = await upload(base, tenants.acme.keys.admin, 'Other spec')
    const beta = await upload(base, tenants.beta.keys.owner, 'Spec')
    const [acmeSpec, acmeOther, betaSpec] = [`spec--t${tenants.acme.teamPk}.yaml`, `other-spec--t${tenants.acme.teamPk}.yaml`, `spec--t${tenants.beta.teamPk}.yaml`]
    expect(await uploads(dataDir)).toEqual([acmeOther, acmeSpec, betaSpec].sort())

    const admin = await signIn(app)
    const res = await app.inject({ method: 'DELETE', url: `/api/libraries${removedByOperator}`, cookies: admin })
    expect(res.statusCode, res.body).toBe(200)
    expect(await uploads(dataDir)).toEqual([acmeOther, betaSpec].sort())

    const owner = await signIn(app, 'member', 'owner@acme.example')
    const deleted = await app.inject({ method: 'DELETE', url: `/api/teams/${tenants.acme.teamPk}`, cookies: owner })
    expect(deleted.statusCode, deleted.body).toBe(200)
    expect(await app.runtime.store.libraries.byId(keptUntilTeamDeletion)).toBeUndefined()
    // Beta's upload is Beta's: untouched.
    expect(await uploads(dataDir)).toEqual([betaSpec])
    expect(await app.runtime.store.libraries.byId(beta)).toBeDefined()
  })
})
