/**
 * `lectern audit` through the real binary, on what the CLI's own commands record: users, keys,
 * access rules, settings, a backup, and a restore that carries over the events recorded after its
 * archive was made. Its filters, its JSON and JSON-lines output, its refusals; and no key or
 * password in the log.
 */
import { readdir } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import type { AuditEvent } from '../../src/store/audit.js'
import { buildTestApp, seedLibrary } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { tmpDataDir, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 120_000 })

const PASSWORD = 'correct horse battery staple'
const DOCS = { 'docs/deploy.md': '# Billing\n\n## Deploy\n\nDeploy the billing service with the deploy script.\n\n```bash\n./deploy.sh v1\n```\n' }

describe('lectern audit', () => {
  it('shows what CLI commands recorded, filtered, as a table, JSON and JSON lines; a restore keeps the events made after its archive', async () => {
    const dataDir = await tmpDataDir()
    const app = await buildTestApp({ dataDir, startWorker: false })
    await seedLibrary(app, '/acme/billing', DOCS)
    await app.close()
    const cli = async (args: string[], input?: string) => {
      const result = await runCli([...args, '--data-dir', dataDir], {}, input === undefined ? {} : { input })
      expect(result.exitCode, `${args.join(' ')}\n${result.stdout}${result.stderr}`).toBe(0)
      return result.stdout
    }
    await cli(['users', 'create', 'alice@example.com'], `${PASSWORD}\n`)
    const key = JSON.parse(await cli(['keys', 'create', '--name', 'alice', '--user', 'alice@example.com', '--json'])) as { id: number; key: string }
    await cli(['libraries', 'access', '/acme/billing', '--restrict', '--user', 'alice@example.com'])
    await cli(['config', 'set', 'jobs.retentionDays', '10'])
    const backups = await tmpDir()
    await cli(['backup', '--to', backups])
    const [archive] = await readdir(backups)
    // After the archive: these must survive its restore.
    await cli(['keys', 'revoke', String(key.id)])
    await cli(['config', 'set', 'access.restrictNewLibraries', 'true'])
    await cli(['restore', path.join(backups, archive), '--yes'])

    const page = JSON.parse(await cli(['audit', '--json'])) as { events: AuditEvent[]; nextCursor: number | null }
    expect(page.nextCursor).toBeNull()
    expect(page.events.map((e) => [e.action, e.target])).toEqual([
      ['restore.applied', archive],
      ['access.default.changed', 'access.restrictNewLibraries'],
      ['key.revoked', `key ${key.id} "alice"`],
      ['backup.created', archive],
      ['settings.changed', 'jobs.retentionDays'],
      ['access.rule.changed', '/acme/billing'],
      ['key.created', `key ${key.id} "alice"`],
      ['user.created', 'alice@example.com'],
    ])
    const user = os.userInfo().username
    for (const event of page.events) expect([event.actor, event.address, event.outcome]).toEqual([{ kind: 'cli', name: user }, null, 'success'])
    expect(page.events[3].details).toMatchObject({ trigger: 'cli', destination: `dir:${backups}` })
    expect(page.events[4].details).toEqual({ value: 10 })

    const table = await cli(['audit', '--action', 'key'])
    expect(table).toMatch(/^TIME\s+ACTION\s+OUTCOME\s+ACTOR\s+ADDRESS\s+TARGET\s+DETAILS/)
    expect(table).toMatch(/key\.revoked\s+success\s+cli: \S+\s+-\s+key \d+ "alice"/)
    expect(table).not.toContain('user.created')
    expect(await cli(['audit', '--action', 'SETTINGS'])).toMatch(/settings\.changed\s+success\s+cli: \S+\s+-\s+jobs\.retentionDays\s+value=10$/m)
    const paged = await cli(['audit', '--limit', '2'])
    expect(paged).toContain(`Older events: add --cursor ${page.events[1].id}.`)
    expect(JSON.parse(await cli(['audit', '--cursor', String(page.events[1].id), '--limit', '1', '--json'])).events[0].id).toBe(page.events[2].id)
    expect(await cli(['audit', '--until', '1d'])).toBe('No audit events match.')

    const lines = (await cli(['audit', '--since', '1h', '--jsonl'])).trimEnd().split('\n')
    expect(lines.map((line) => (JSON.parse(line) as AuditEvent).id)).toEqual(page.events.map((e) => e.id).reverse())
    const everything = lines.join('\n')
    for (const secret of [key.key, PASSWORD]) expect(everything).not.toContain(secret)

    const refused = await runCli(['audit', '--action', 'keys', '--data-dir', dataDir])
    expect([refused.exitCode, refused.stderr]).toEqual([2, expect.stringContaining('No audit action is "keys"')])
    const badTime = await runCli(['audit', '--since', 'last week', '--json', '--data-dir', dataDir])
    expect(badTime.exitCode).toBe(2)
    expect(JSON.parse(badTime.stdout)).toMatchObject({ error: 'validation_error', message: expect.stringContaining('30m, 24h, 7d or 2w') })
  })
})
