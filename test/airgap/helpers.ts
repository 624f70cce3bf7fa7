/** Shared pieces of the airgap tests: a cloud with libraries and licenses, an onprem install holding a license, and request builders. */
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import fs from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { signLicense, type License, type LicenseFile } from '../../src/license/format.js'
import { installLicense } from '../../src/license/state.js'
import { seedLibrary } from '../helpers/app.js'
import { setProcessEnv, type Defer } from '../helpers/tmp.js'

/** A key pair of the test's own, its public half configured for this process (and returned for CLI runs). */
export function licenseKeys(defer?: Defer): { privateKey: KeyObject; publicPem: string; env: Record<string, string> } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString()
  const env = { LECTERN_LICENSE_PUBLIC_KEY: publicPem }
  setProcessEnv(env, defer)
  return { privateKey, publicPem, env }
}

export function offlineLicense(privateKey: KeyObject, overrides: Partial<License> = {}): LicenseFile {
  return signLicense(
    {
      customer: 'Acme Corp',
      edition: 'enterprise',
      offline: true,
      issuedAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2099-12-31T23:59:59.999Z',
      licenseKeyId: 'lctl_testtest',
      ...overrides,
    },
    privateKey,
  )
}

export async function installTestLicense(app: FastifyInstance, file: LicenseFile): Promise<void> {
  await installLicense(app.runtime, JSON.stringify(file))
}

/** Docs with enough sections for retrieval to have a choice, in the shape seedLibrary takes. */
export function docsOf(name: string, sections = 12): Record<string, string> {
  const parts = [`# ${name}\n\n${name} renders widgets in the terminal.`]
  const topics = ['install', 'configure themes', 'render tables', 'stream output', 'handle resize', 'test components', 'keyboard input', 'colour palettes', 'layout grids', 'plugins', 'logging', 'deploy']
  for (let i = 0; i < sections; i++) {
    const topic = topics[i % topics.length]
    parts.push(`## How to ${topic} ${i}\n\nTo ${topic} with ${name}, call \`${name}.${topic.replace(/\s+/g, '_')}${i}()\` once at start-up; section ${i} explains the options.\n\n\`\`\`ts\nimport { ${name} } from '${name}'\n${name}.${topic.replace(/\s+/g, '_')}${i}({ level: ${i} })\n\`\`\`\n`)
  }
  parts.push(`## Concepts\n\n${name} draws every frame into an off-screen buffer and diffs it against the terminal, so only changed cells are written. Widgets are plain functions of state; a re-render happens when state changes.\n\nThe event loop batches input events and resizes into one render per tick, which keeps slow terminals responsive.`)
  return { 'README.md': parts.join('\n\n'), 'docs/guide.md': `# Guide\n\n## Quick start\n\nRun \`npx ${name} init\` to scaffold a project.\n\n\`\`\`sh\nnpx ${name} init my-app\n\`\`\`\n` }
}

export async function seedDocs(app: FastifyInstance, id: string, sections = 12): Promise<void> {
  await seedLibrary(app, id, docsOf(id.split('/')[2], sections))
}

/** A multipart/form-data body with one file part (and optional fields). */
export function multipartBody(file: Buffer, fields: Record<string, string> = {}, fieldName = 'bundleFile'): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----lectern${Math.random().toString(16).slice(2)}`
  const parts: Buffer[] = []
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  }
  parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${fieldName}"; filename="lectern-libraries.zip"\r\ncontent-type: application/zip\r\n\r\n`))
  parts.push(file, Buffer.from(`\r\n--${boundary}--\r\n`))
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}

export function importJson(app: FastifyInstance, key: string, body: unknown, query = '') {
  return app.inject({ method: 'POST', url: `/api/import-libraries${query}`, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) })
}

export function importZip(app: FastifyInstance, key: string, zipFile: string, fields: Record<string, string> = {}, query = '') {
  const { payload, headers } = multipartBody(fs.readFileSync(zipFile), fields)
  return app.inject({ method: 'POST', url: `/api/import-libraries${query}`, headers: { ...headers, authorization: `Bearer ${key}` }, payload })
}

/** Snippet texts of a context answer, for comparing two installs. */
export async function contextOf(app: FastifyInstance, libraryId: string, query: string): Promise<unknown> {
  const res = await app.inject({ url: `/api/v2/context?libraryId=${encodeURIComponent(libraryId)}&query=${encodeURIComponent(query)}&type=json` })
  if (res.statusCode !== 200) throw new Error(`context ${res.statusCode}: ${res.body}`)
  const body = res.json() as { codeSnippets: unknown[]; infoSnippets: unknown[] }
  return { code: body.codeSnippets, info: body.infoSnippets }
}
