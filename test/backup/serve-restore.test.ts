/** A dashboard restore end to end with real `lectern serve` processes: stage, exit 75, apply at next start. */
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { RESTORE_STAGED_EXIT_CODE } from '../../server/serve.js'
import { openStore } from '../../src/store/index.js'
import { pollUntil } from '../helpers/poll.js'
import { startServer } from '../helpers/server.js'
import { tmpDataDir } from '../helpers/tmp.js'
import { PASSWORD } from './helpers.js'

describe('lectern serve and a staged restore', () => {
  it('stages the restore, exits with the documented code, and applies it at the next start', async () => {
    const dataDir = await tmpDataDir()
    const store = await openStore(dataDir)
    await store.users.create({ email: 'ops@example.com', password: PASSWORD, role: 'admin' })
    store.settings.set('marker', 'before-backup')
    store.close()

    const first = await startServer(dataDir)
    const login = await fetch(`${first.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'ops@example.com', password: PASSWORD }) })
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!
    expect((await fetch(`${first.url}/api/backup`, { method: 'POST', headers: { cookie } })).status).toBe(202)
    const name = await pollUntil('the backup', async () => {
      const status = (await (await fetch(`${first.url}/api/backup/status`, { headers: { cookie } })).json()) as { running: boolean; last?: { name?: string } }
      return status.running ? undefined : status.last?.name
    })
    const changed = await openStore(dataDir)
    changed.settings.set('marker', 'after-backup')
    changed.close()

    const staged = await fetch(`${first.url}/api/backups/${name}/restore`, { method: 'POST', headers: { cookie } })
    expect(staged.status).toBe(202)
    const exited = await first.process
    expect(exited.exitCode).toBe(RESTORE_STAGED_EXIT_CODE)

    const second = await startServer(dataDir)
    second.process.kill('SIGTERM')
    await second.process
    expect(fs.existsSync(`${dataDir}/restore-staged`)).toBe(false)
    expect(fs.readdirSync(dataDir).filter((f) => f.startsWith('pre-restore-'))).toHaveLength(1)
    const restored = await openStore(dataDir)
    expect(restored.settings.get('marker')).toBe('before-backup')
    restored.close()
  })
})
