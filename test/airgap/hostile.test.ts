/**
 * Hostile imports: every unsafe bundle or payload is refused with a clear whole-request or
 * per-library error, and nothing of a refused import is left visible (no library, no staged file).
 */
import fs from 'node:fs'
import { Readable } from 'node:stream'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import yazl from 'yazl'
import { beforeAll, describe, expect, it } from 'vitest'
import { writeBundle } from '../../src/airgap/bundle.js'
import type { ImportLibrary } from '../../src/airgap/payload.js'
import { EMBEDDING_SETTING } from '../../src/embed/pool.js'
import { buildTestApp, createKey } from '../helpers/app.js'
import { pollUntil } from '../helpers/poll.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { importJson, importZip, installTestLicense, licenseKeys, offlineLicense } from './helpers.js'

const library = (project: string, extra: Partial<ImportLibrary> = {}): ImportLibrary => ({
  project,
  title: project.split('/')[2] ?? project,
  codeSnippets: [{ id: '0', title: 'Install', description: 'Install the package.', language: 'sh', codeList: [{ language: 'sh', code: `npm install ${project}` }] }],
  infoSnippets: [{ id: '1', content: `${project} is a library for tests.`, breadcrumb: 'Intro' }],
  ...extra,
})

interface Entry {
  name: string
  data: Buffer
  mode?: number
  compress?: boolean
  /** Written from a stream: yazl then puts zero sizes in the local header and the real ones in a data descriptor after the data. */
  streamed?: boolean
}

async function zipOf(file: string, entries: Entry[]): Promise<string> {
  const zip = new yazl.ZipFile()
  for (const e of entries) {
    if (e.streamed) zip.addReadStream(Readable.from([e.data]), e.name)
    else zip.addBuffer(e.data, e.name, { ...(e.mode ? { mode: e.mode } : {}), compress: e.compress ?? true })
  }
  zip.end()
  const out = fs.createWriteStream(file)
  zip.outputStream.pipe(out)
  await new Promise<void>((resolve) => out.on('close', resolve))
  return file
}

const manifest = (files: string[]) => Buffer.from(JSON.stringify({ format: 'lectern-libraries', version: 1, createdAt: new Date().toISOString(), libraries: files.map((file) => ({ project: '?', file, codeSnippets: 1, infoSnippets: 1 })) }))
const json = (value: unknown) => Buffer.from(JSON.stringify(value))

/** Renames an entry in place, byte for byte (yazl refuses to write unsafe names itself). */
function renameEntry(file: string, from: string, to: string): void {
  if (from.length !== to.length) throw new Error('names must have the same length')
  const bytes = fs.readFileSync(file)
  let at = bytes.indexOf(from)
  let count = 0
  while (at !== -1) {
    bytes.write(to, at, 'latin1')
    count++
    at = bytes.indexOf(from, at + 1)
  }
  if (count < 2) throw new Error(`expected the name in the local and central headers, found ${count}`)
  fs.writeFileSync(file, bytes)
}

/** Rewrites the sizes the central directory declares for an entry (yazl writes the real ones there and in the local header). */
function declareSizes(file: string, name: string, lie: (real: Sizes) => Sizes): void {
  const bytes = fs.readFileSync(file)
  for (let at = bytes.indexOf(CENTRAL_HEADER); at !== -1; at = bytes.indexOf(CENTRAL_HEADER, at + 4)) {
    const nameLength = bytes.readUInt16LE(at + 28)
    if (bytes.toString('latin1', at + 46, at + 46 + nameLength) !== name) continue
    const declared = lie({ compressed: bytes.readUInt32LE(at + 20), uncompressed: bytes.readUInt32LE(at + 24) })
    bytes.writeUInt32LE(declared.compressed, at + 20)
    bytes.writeUInt32LE(declared.uncompressed, at + 24)
    fs.writeFileSync(file, bytes)
    return
  }
  throw new Error(`no central directory entry named ${name}`)
}
interface Sizes {
  compressed: number
  uncompressed: number
}
const CENTRAL_HEADER = Buffer.from([0x50, 0x4b, 0x01, 0x02])
const LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04])
const DATA_DESCRIPTOR = Buffer.from([0x50, 0x4b, 0x07, 0x08])

describe('hostile imports', () => {
  const defer = suiteTeardown()
  let app: FastifyInstance
  let key: string
  let work: string

  beforeAll(async () => {
    const { privateKey } = licenseKeys(defer)
    app = await buildTestApp({ startWorker: false, defer })
    await installTestLicense(app, offlineLicense(privateKey))
    key = await createKey(app)
    work = await tmpDir('lectern-hostile-', defer)
  })

  async function expectNothingImported(): Promise<void> {
    expect(await app.runtime.store.libraries.list()).toEqual([])
    expect(await app.runtime.store.jobs.list()).toEqual([])
    const imports = path.join(app.runtime.store.paths.root, 'imports')
    expect(fs.existsSync(imports) ? fs.readdirSync(imports) : []).toEqual([])
  }

  async function expectBundleRejected(file: string, message: RegExp): Promise<void> {
    const res = await importZip(app, key, file)
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json().error).toBe('validation_error')
    expect(res.json().message).toMatch(message)
    await expectNothingImported()
  }

  it('rejects zip entries that climb out with .. or are absolute paths', async () => {
    const good = library('/acme/one')
    const climbing = await zipOf(path.join(work, 'climb.zip'), [
      { name: 'manifest.json', data: manifest(['libraries/0001.json']) },
      { name: 'libraries/0001.json', data: json(good), compress: false },
    ])
    renameEntry(climbing, 'libraries/0001.json', '../../../../01.json')
    await expectBundleRejected(climbing, /rejected: (unsafe entry name|.*not a relative path)/)
    const absolute = await zipOf(path.join(work, 'absolute.zip'), [
      { name: 'manifest.json', data: manifest(['libraries/0001.json']) },
      { name: 'libraries/0001.json', data: json(good), compress: false },
    ])
    renameEntry(absolute, 'libraries/0001.json', '/tmp/lectern/1.json')
    await expectBundleRejected(absolute, /rejected: (unsafe entry name|.*not a relative path)/)
  })

  it('rejects symlinks, zip bombs and non-UTF-8 entries', async () => {
    const symlink = await zipOf(path.join(work, 'symlink.zip'), [
      { name: 'manifest.json', data: manifest(['libraries/0001.json']) },
      { name: 'libraries/0001.json', data: Buffer.from('/etc/passwd'), mode: 0o120777 },
    ])
    await expectBundleRejected(symlink, /symbolic link/)
    const bomb = await zipOf(path.join(work, 'bomb.zip'), [
      { name: 'manifest.json', data: manifest(['libraries/0001.json']) },
      { name: 'libraries/0001.json', data: Buffer.alloc(20 * 1024 * 1024, 0x20) },
    ])
    expect(fs.statSync(bomb).size).toBeLessThan(100_000)
    await expectBundleRejected(bomb, /compression ratio over 100:1/)
    const latin1 = await zipOf(path.join(work, 'latin1.zip'), [
      { name: 'manifest.json', data: manifest(['libraries/0001.json']) },
      { name: 'libraries/0001.json', data: Buffer.from(JSON.stringify(library('/acme/caf\u00e9x')).replace('caf\u00e9x', 'cafe'), 'latin1').fill(0xe9, 40, 41) },
    ])
    await expectBundleRejected(latin1, /libraries\/0001\.json is not valid UTF-8/)
    const stray = await zipOf(path.join(work, 'stray.zip'), [
      { name: 'manifest.json', data: manifest([]) },
      { name: 'run.sh', data: Buffer.from('rm -rf /') },
    ])
    await expectBundleRejected(stray, /unexpected entry "run.sh"/)
  })

  it.each([
    // The local header, which keeps the real sizes, gives each lie away before a byte is inflated.
    ['fewer inflated bytes than there are', (real: Sizes) => ({ ...real, uncompressed: 10 }), true, /libraries\/0001\.json declares other sizes in its local header than in the central directory/],
    ['more inflated bytes than there are', (real: Sizes) => ({ ...real, uncompressed: real.uncompressed + 100 }), true, /libraries\/0001\.json declares other sizes in its local header than in the central directory/],
    ['fewer compressed bytes than there are', (real: Sizes) => ({ ...real, compressed: real.compressed - 16 }), true, /libraries\/0001\.json declares other sizes in its local header than in the central directory/],
    ['a stored entry of another size than its bytes', (real: Sizes) => ({ ...real, uncompressed: 10 }), false, /size mismatch for stored file/],
  ] as const)('rejects an entry whose headers declare %s, with 400 and nothing imported', async (what, lie, compress, message) => {
    const file = await zipOf(path.join(work, `${what.replace(/\W+/g, '-')}.zip`), [
      { name: 'manifest.json', data: manifest(['libraries/0001.json']) },
      { name: 'libraries/0001.json', data: json(library('/acme/liar')), compress },
    ])
    declareSizes(file, 'libraries/0001.json', lie)
    await expectBundleRejected(file, message)
  })

  it('rejects a bundle entry holding __proto__ or constructor keys, as the JSON payload does', async () => {
    for (const [i, poisoned] of [`{"project":"/acme/p","codeSnippets":[],"infoSnippets":[],"__proto__":{"admin":true}}`, `{"project":"/acme/p","codeSnippets":[],"infoSnippets":[{"content":"x","constructor":{"prototype":{"x":1}}}]}`].entries()) {
      const file = await zipOf(path.join(work, `poisoned-${i}.zip`), [
        { name: 'manifest.json', data: manifest(['libraries/0001.json']) },
        { name: 'libraries/0001.json', data: Buffer.from(poisoned) },
      ])
      await expectBundleRejected(file, /^The bundle was rejected: libraries\/0001\.json may not contain __proto__ or constructor keys\. Nothing was imported\.$/)
    }
  })

  it('rejects an entry whose local header or data descriptor disagrees with the central directory', async () => {
    const bundle = async (name: string, streamed = false) =>
      zipOf(path.join(work, name), [
        { name: 'manifest.json', data: manifest(['libraries/0001.json']) },
        { name: 'libraries/0001.json', data: json(library('/acme/liar')), streamed },
      ])
    /** The local header of the entry: where its sizes and name are. */
    const localHeaderOf = (bytes: Buffer) => bytes.lastIndexOf(LOCAL_HEADER, bytes.indexOf('libraries/0001.json'))
    const sizesInHeader = await bundle('local-sizes.zip')
    let bytes = fs.readFileSync(sizesInHeader)
    let header = localHeaderOf(bytes)
    bytes.writeUInt32LE(10, header + 18)
    bytes.writeUInt32LE(10, header + 22)
    fs.writeFileSync(sizesInHeader, bytes)
    await expectBundleRejected(sizesInHeader, /libraries\/0001\.json declares other sizes in its local header than in the central directory/)

    const nameInHeader = await bundle('local-name.zip')
    bytes = fs.readFileSync(nameInHeader)
    header = localHeaderOf(bytes)
    bytes.write('libraries/0002.json', header + 30, 'latin1')
    fs.writeFileSync(nameInHeader, bytes)
    await expectBundleRejected(nameInHeader, /libraries\/0001\.json is named "libraries\/0002\.json" in its local header/)

    // Streamed, it is read as it should be; its data descriptor lying is refused.
    const streamed = await bundle('streamed.zip', true)
    const accepted = await importZip(app, key, streamed)
    expect(accepted.statusCode, accepted.body).toBe(202)
    await app.runtime.store.libraries.remove((await app.runtime.store.libraries.byId('/acme/liar'))!.pk)
    fs.rmSync(path.join(app.runtime.store.paths.root, 'imports'), { recursive: true, force: true })
    const sizesInDescriptor = await bundle('descriptor.zip', true)
    bytes = fs.readFileSync(sizesInDescriptor)
    const descriptor = bytes.indexOf(DATA_DESCRIPTOR, localHeaderOf(bytes))
    bytes.writeUInt32LE(7, descriptor + 12)
    fs.writeFileSync(sizesInDescriptor, bytes)
    await expectBundleRejected(sizesInDescriptor, /libraries\/0001\.json declares other sizes in its data descriptor than in the central directory/)
  })

  it('leaves no staging folder behind when every library of an import already exists', async () => {
    const imports = path.join(app.runtime.store.paths.root, 'imports')
    await app.runtime.store.libraries.create({ id: '/acme/there', title: 'there', sourceKind: 'import', sourceUrl: '', isImported: true })
    const file = path.join(work, 'there.zip')
    await writeBundle(file, [library('/acme/there')])
    for (const again of [() => importJson(app, key, { libraries: [library('/acme/there')] }), () => importZip(app, key, file)]) {
      const res = await again()
      expect(res.statusCode, res.body).toBe(202)
      expect(res.json()).toMatchObject({ queued: [], skipped: [{ project: '/acme/there', reason: 'already exists (import with force to overwrite)' }] })
      expect(fs.existsSync(imports) ? fs.readdirSync(imports) : []).toEqual([])
    }
    await app.runtime.store.libraries.remove((await app.runtime.store.libraries.byId('/acme/there'))!.pk)
  })

  it('rejects a bundle entry nested 100,000 levels deep', async () => {
    const deep = Buffer.from(`{"project":"/acme/deep","codeSnippets":[],"infoSnippets":[],"extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)
    const file = await zipOf(path.join(work, 'deep.zip'), [
      { name: 'manifest.json', data: manifest(['libraries/0001.json']) },
      { name: 'libraries/0001.json', data: deep },
    ])
    await expectBundleRejected(file, /libraries\/0001\.json nests arrays and objects more than 64 levels deep/)
  })

  it('rejects duplicate library IDs in a bundle and in a payload', async () => {
    const file = path.join(work, 'dupes.zip')
    await writeBundle(file, [library('/acme/one'), library('/ACME/one')])
    await expectBundleRejected(file, /\/acme\/one appears twice/)
    const res = await importJson(app, key, { libraries: [library('/acme/two'), library('acme/two')] })
    expect(res.statusCode).toBe(400)
    expect(res.json().message).toMatch(/\/acme\/two appears twice/)
    await expectNothingImported()
  })

  it('skips invalid libraries with their reason and queues the valid ones', async () => {
    const { codeSnippets: _c, ...noCode } = library('/acme/nocode')
    const res = await importJson(app, key, {
      libraries: [
        library('/acme/good'),
        library('../../etc/passwd'),
        library('/acme/pinned@1.0'),
        noCode,
        library('/acme/huge', { infoSnippets: [{ content: 'x'.repeat(1_000_001) }] }),
        library('/acme/surrogate', { infoSnippets: [{ content: 'broken \ud800 text' }] }),
        library('/acme/empty', { codeSnippets: [], infoSnippets: [] }),
      ],
    })
    expect(res.statusCode).toBe(202)
    const body = res.json() as { queued: string[]; skipped: Array<{ project: string; reason: string }> }
    expect(body.queued).toEqual(['/acme/good'])
    const reasons = Object.fromEntries(body.skipped.map((s) => [s.project, s.reason]))
    expect(reasons).toEqual({
      '../../etc/passwd': expect.stringMatching(/^invalid: .*library ID/i),
      '/acme/pinned@1.0': expect.stringMatching(/version pin/),
      '/acme/nocode': expect.stringMatching(/codeSnippets/),
      '/acme/huge': expect.stringMatching(/infoSnippets\[0\] holds 1000001 characters, over the cap of 1000000/),
      '/acme/surrogate': expect.stringMatching(/infoSnippets\[0\]\.content is not valid UTF-8/),
      '/acme/empty': expect.stringMatching(/no snippets/),
    })
    expect((await app.runtime.store.libraries.list()).map((l) => l.id)).toEqual(['/acme/good'])
    // Clean up for the next cases: this test queued one job on purpose.
    await app.runtime.store.libraries.remove((await app.runtime.store.libraries.byId('/acme/good'))!.pk)
    fs.rmSync(path.join(app.runtime.store.paths.root, 'imports'), { recursive: true, force: true })
  })

  it('rejects a payload with no valid library, non-UTF-8 JSON and a body that is not the payload', async () => {
    const none = await importJson(app, key, { libraries: [{ project: '/acme/x' }] })
    expect(none.statusCode).toBe(400)
    expect(none.json().message).toMatch(/No library of the import is valid \(\/acme\/x: invalid: field codeSnippets/)
    const bytes = Buffer.concat([Buffer.from('{"libraries":[{"project":"/acme/bad","codeSnippets":[],"infoSnippets":[{"content":"caf'), Buffer.from([0xe9]), Buffer.from('"}]}]}')])
    const latin1 = await app.inject({ method: 'POST', url: '/api/import-libraries', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: bytes })
    expect(latin1.statusCode).toBe(400)
    expect(latin1.json().message).toMatch(/not valid UTF-8/)
    // As on every other route: keys that a later merge would turn into prototype pollution.
    for (const poisoned of ['{"libraries":[],"__proto__":{"admin":true}}', '{"libraries":[{"project":"/acme/p","constructor":{"prototype":{"x":1}}}]}']) {
      const refused = await app.inject({ method: 'POST', url: '/api/import-libraries', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: poisoned })
      expect(refused.statusCode).toBe(400)
      expect(refused.json()).toMatchObject({ error: 'validation_error', message: 'The body may not contain __proto__ or constructor keys.' })
    }
    const wrong = await importJson(app, key, [library('/acme/x')])
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json().message).toMatch(/\{"libraries": \[\.\.\.\], "force": false\}/)
    const noBody = await app.inject({ method: 'POST', url: '/api/import-libraries', headers: { authorization: `Bearer ${key}` } })
    expect(noBody.statusCode).toBe(400)
    expect(noBody.json()).toMatchObject({ error: 'validation_error', message: expect.stringMatching(/as application\/json, or a bundle as multipart\/form-data/) })
    // Only JSON and multipart are read: Fastify's text parser would hold the body whole and let bad bytes in.
    const text = await app.inject({ method: 'POST', url: '/api/import-libraries', headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' }, payload: JSON.stringify({ libraries: [library('/acme/x')] }) })
    expect(text.statusCode).toBe(400)
    expect(text.json()).toMatchObject({ error: 'validation_error', message: 'Content-Type of this body is not one this endpoint reads; send JSON with "Content-Type: application/json", or a file as multipart/form-data.' })
    const noKey = await app.inject({ method: 'POST', url: '/api/import-libraries', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ libraries: [library('/acme/x')] }) })
    expect(noKey.statusCode).toBe(401)
    await expectNothingImported()
  })

  it('reads a payload a snippet at a time: broken JSON after valid libraries, trailing bytes or libraries named twice leave nothing behind', async () => {
    const post = (payload: string | Buffer) =>
      app.inject({ method: 'POST', url: '/api/import-libraries', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload })
    const good = JSON.stringify(library('/acme/staged'))
    const refusals: Array<[string, RegExp]> = [
      [`{"libraries":[${good},{"project":"/acme/cut"`, /^The body is not valid JSON\.$/],
      [`{"libraries":[${good},]}`, /^The body is not valid JSON\.$/],
      [`{"libraries":[${good}]} []`, /^The body is not valid JSON\.$/],
      [`{"libraries":[${good}] "force":true}`, /^The body is not valid JSON\.$/],
      [`{"libraries":[${good}],"libraries":[${good}]}`, /^The body names "libraries" twice\.$/],
      [`{"libraries":[${good}],"\\u005f_proto__":{}}`, /^The body may not contain __proto__ or constructor keys\.$/],
      [`{"libraries":{"0":${good}}}`, /\{"libraries": \[\.\.\.\], "force": false\}/],
      ['{"force":true}', /\{"libraries": \[\.\.\.\], "force": false\}/],
      ['{"libraries":[ ]}', /^The payload holds no libraries\.$/],
      ['  ', /^The body is not valid JSON\.$/],
      // Read a snippet at a time, no one value may take more than 16 MB: no export holds one.
      [`{"libraries":[${good},{"project":"/acme/big","codeSnippets":[],"infoSnippets":[{"content":"${'x'.repeat(17 * 1024 * 1024)}"}]}]}`, /^The body holds \d+ bytes at libraries\[1\]\.infoSnippets\[0\], over the 16 MB one value may take\. Nothing was imported\.$/],
    ]
    for (const [payload, message] of refusals) {
      const res = await post(payload)
      expect(res.statusCode, payload.slice(-40)).toBe(400)
      expect(res.json()).toMatchObject({ error: 'validation_error', message: expect.stringMatching(message) })
      await expectNothingImported()
    }
    // A byte order mark, whitespace anywhere between values and the body's own force after the libraries are read as before.
    await app.runtime.store.libraries.create({ id: '/acme/bom', title: 'bom', sourceKind: 'import', sourceUrl: '', isImported: true })
    const forced = await post(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`\n{ "libraries" :\t[ ${JSON.stringify(library('/acme/bom'))} ] ,\r\n "force" : true }\n`)]))
    expect(forced.statusCode, forced.body).toBe(202)
    expect(forced.json()).toMatchObject({ queued: ['/acme/bom'], skipped: [] })
    expect(await app.runtime.store.jobs.list()).toHaveLength(1)
    await app.runtime.store.libraries.remove((await app.runtime.store.libraries.byId('/acme/bom'))!.pk)
    fs.rmSync(path.join(app.runtime.store.paths.root, 'imports'), { recursive: true, force: true })
  })
})

describe('a failing import job', () => {
  it('leaves no library visible and keeps the reason in the job list', async () => {
    const { privateKey } = licenseKeys()
    const app = await buildTestApp()
    await installTestLicense(app, offlineLicense(privateKey))
    // Nothing listens on port 9: the re-embedding fails.
    await app.runtime.store.settings.set(EMBEDDING_SETTING, { provider: 'ollama', model: 'nomic-embed-text', host: 'http://127.0.0.1:9' })
    const key = await createKey(app)
    const res = await importJson(app, key, { libraries: [library('/acme/doomed')] })
    expect(res.statusCode).toBe(202)
    const failure = await pollUntil('the import job to fail', async () => (await app.runtime.store.jobs.list({ states: ['failed'] }))[0])
    expect(failure.kind).toBe('import')
    expect(failure.errorMessage).toMatch(/Import of \/acme\/doomed failed: Cannot reach Ollama/)
    expect(await app.runtime.store.libraries.byId('/acme/doomed')).toBeUndefined()
    // The reason is for key holders; anonymous callers get its code only.
    const status = (await app.inject({ url: '/api/parse-status', headers: { authorization: `Bearer ${key}` } })).json() as { recentFailures: Array<{ kind: string; message: string }> }
    expect(status.recentFailures[0]).toMatchObject({ kind: 'import', message: expect.stringMatching(/\/acme\/doomed/) })
    expect(fs.readdirSync(path.join(app.runtime.store.paths.root, 'imports'))).toEqual([])
  })
})
