/** S3 destinations against a real S3 API (s3rver on 127.0.0.1), and failure injection with aws-sdk-client-mock. */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { pipeline } from 'node:stream/promises'
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3'
import { mockClient } from 'aws-sdk-client-mock'
// s3rver ships no types.
// @ts-expect-error untyped module
import S3rver from 's3rver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDestination, updateBackupConfig } from '../../src/backup/config.js'
import { s3ClientConfig } from '../../src/backup/destinations.js'
import { BackupRunner } from '../../src/backup/runner.js'
import { scanArchive } from '../../src/backup/verify.js'
import { testSettingKey } from '../helpers/settings.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'
import { seededApp } from './helpers.js'

const quietLog = { info: () => {}, warn: () => {}, error: () => {} }
const teardown = suiteTeardown()
let endpoint: string
let server: { run(): Promise<{ port: number }>; close(): Promise<void> }

beforeAll(async () => {
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: await tmpDir('lectern-s3rver-', teardown), configureBuckets: [{ name: 'bk' }] })
  const { port } = await server.run()
  endpoint = `http://127.0.0.1:${port}`
})
afterAll(async () => server.close())

const s3Settings = (prefix: string, forcePathStyle = true) => ({
  type: 's3' as const,
  bucket: 'bk',
  region: 'eu-west-1',
  accessKeyId: 'S3RVER',
  secretAccessKey: 'S3RVER',
  endpoint,
  forcePathStyle,
  prefix,
})

describe('S3 destination (s3rver)', () => {
  it('uploads under the key prefix with path-style addressing, lists, downloads, and prunes only archives', async () => {
    const app = await seededApp()
    const { store } = app.runtime
    await updateBackupConfig(store, { destination: s3Settings('team/lectern'), retention: { keep: 2 } })
    const raw = new S3Client(s3ClientConfig({ ...s3Settings('team/lectern') }))
    // Objects that must survive pruning: not archive names, or outside the prefix.
    await raw.send(new PutObjectCommand({ Bucket: 'bk', Key: 'team/lectern/notes.txt', Body: 'keep me' }))
    await raw.send(new PutObjectCommand({ Bucket: 'bk', Key: 'lectern-backup-2020-01-01T00-00-00.tar.gz', Body: 'outside the prefix' }))

    const runner = new BackupRunner(store, quietLog)
    const names: string[] = []
    for (let i = 0; i < 3; i++) names.push((await (await runner.start({ trigger: 'manual' })).done).name!)
    expect(new Set(names).size).toBe(3)

    const destination = await openDestination(store)
    expect(destination.label).toBe('s3://bk/team/lectern/')
    const listed = await destination.list()
    expect(listed.map((a) => a.name)).toEqual([names[2], names[1]])
    const keys = (await raw.send(new ListObjectsV2Command({ Bucket: 'bk' }))).Contents!.map((o) => o.Key).sort()
    expect(keys).toEqual(['lectern-backup-2020-01-01T00-00-00.tar.gz', `team/lectern/${names[1]}`, `team/lectern/${names[2]}`, 'team/lectern/notes.txt'].sort())
    // The staged local copy is gone once uploaded.
    expect(fs.existsSync(destination.stagingDir) ? fs.readdirSync(destination.stagingDir) : []).toEqual([])

    const file = path.join(await tmpDir(), names[2]!)
    await pipeline(await destination.download(names[2]!), fs.createWriteStream(file))
    const manifest = await scanArchive(file)
    expect(manifest.libraries.map((l) => l.id)).toEqual(['/acme/gadgets', '/acme/widgets'])
  })

  it('`--to s3://bucket/prefix` overrides bucket and prefix and keeps the stored endpoint and keys', async () => {
    const app = await seededApp()
    const { store } = app.runtime
    await updateBackupConfig(store, { destination: s3Settings('') })
    const result = await (await new BackupRunner(store, quietLog).start({ trigger: 'cli', target: 's3://bk/other/place' })).done
    expect(result.destination).toBe('s3://bk/other/place/')
    expect((await (await openDestination(store, 's3://bk/other/place')).list()).map((a) => a.name)).toEqual([result.name])
  })
})

describe('S3 upload failure (aws-sdk-client-mock)', () => {
  it('a part failing mid-multipart aborts the upload, leaves no object, removes the local file and prunes nothing', async () => {
    const app = await seededApp()
    const { store } = app.runtime
    // Incompressible data, so the archive needs more than one 5 MiB part.
    await store.settings.set(testSettingKey('bulk'), randomBytes(9 * 1024 * 1024).toString('base64'))
    await updateBackupConfig(store, { destination: s3Settings('p'), retention: { keep: 1 } })
    const s3 = mockClient(S3Client)
    try {
      s3.on(CreateMultipartUploadCommand).resolves({ UploadId: 'upload-1' })
      let parts = 0
      s3.on(UploadPartCommand).callsFake(async () => {
        if (++parts >= 2) throw Object.assign(new Error('connection reset by peer'), { name: 'NetworkingError' })
        return { ETag: `"etag-${parts}"` }
      })
      s3.on(AbortMultipartUploadCommand).resolves({})
      s3.on(ListObjectsV2Command).resolves({ Contents: [{ Key: 'p/lectern-backup-2020-01-01T00-00-00.tar.gz', Size: 1 }] })
      const runner = new BackupRunner(store, quietLog)
      await expect((await runner.start({ trigger: 'manual' })).done).rejects.toThrow(/Upload of .* failed/)
      expect(s3.commandCalls(AbortMultipartUploadCommand).map((c) => c.args[0].input)).toEqual([{ Bucket: 'bk', Key: expect.stringMatching(/^p\/lectern-backup-/), UploadId: 'upload-1' }])
      expect(s3.commandCalls(CompleteMultipartUploadCommand)).toHaveLength(0)
      expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0)
      expect(s3.commandCalls(DeleteObjectCommand)).toHaveLength(0)
      const staging = (await openDestination(store)).stagingDir
      expect(fs.existsSync(staging) ? fs.readdirSync(staging) : []).toEqual([])
      expect((await runner.status()).last).toMatchObject({ ok: false, error: expect.stringMatching(/connection reset/) })
    } finally {
      s3.restore()
    }
  })
})
