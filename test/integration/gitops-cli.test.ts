/**
 * `lectern gitops` through the real binary, against a manifest repository on a real git server:
 * configuring it, a dry run, a sync that queues the jobs, the status, an invalid manifest
 * refused with every problem named and nothing changed, and the cloud refusing it all.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { exitCodeOf } from '../../cli/run.js'
import { buildTestApp } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { git, makeGitRepo } from '../helpers/git.js'
import { startGitServer } from '../helpers/git-server.js'
import { tmpDataDir, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 120_000 })

describe('lectern gitops', () => {
  it('configures the manifest, plans, syncs and reports; an invalid manifest changes nothing', async () => {
    const root = await tmpDir('lectern-gitops-cli-')
    await makeGitRepo({ 'docs/guide.md': '# Widgets\n\n## Install\n\nInstall widgets.\n\n```bash\nnpm i widgets\n```\n' }, { parent: path.join(root, 'acme'), name: 'widgets' })
    const manifest = await makeGitRepo({ 'deploy/repos.yaml': 'repos: []\n' }, { parent: path.join(root, 'ops'), name: 'sources' })
    const server = await startGitServer(root)
    const dataDir = await tmpDataDir()
    const app = await buildTestApp({ dataDir, startWorker: false })
    const lectern = (...args: string[]) => runCli([...args, '--data-dir', dataDir])

    const unset = await lectern('gitops', 'status')
    expect(unset.stdout).toContain('GitOps is not set up')
    const configured = await lectern('gitops', 'config', '--repo', `${server.url}/ops/sources`, '--path', 'deploy/repos.yaml', '--prune')
    expect(configured.exitCode, configured.stderr).toBe(0)
    expect(configured.stdout).toBe(`Manifest: deploy/repos.yaml in ${server.url}/ops/sources (default branch); syncs on demand only; pruning on: a sync removes the libraries it added that the manifest no longer lists.`)
    await writeFile(path.join(manifest.dir, 'deploy/repos.yaml'), `repos:\n  - url: ${server.url}/acme/widgets\n    folders: [docs]\n`)
    await git(['commit', '-qam', 'add widgets'], manifest.dir)

    const dry = await lectern('gitops', 'sync', '--dry-run')
    expect(dry.exitCode, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(/PLAN\s+LIBRARY\s+TYPE\s+NOTE\n\s*create\s+\/acme\/widgets\s+git/)
    expect(dry.stdout).toContain('Dry run, nothing changed')
    const synced = await lectern('gitops', 'sync', '--json')
    expect(synced.exitCode, synced.stderr).toBe(0)
    expect(JSON.parse(synced.stdout)).toMatchObject({ created: 1, failed: 0, entries: [{ libraryId: '/acme/widgets', action: 'create', jobId: expect.any(Number) }] })
    expect((await lectern('gitops', 'sync')).stdout).toContain('nothing to do, the manifest is unchanged since the last complete sync')
    const status = await lectern('gitops', 'status')
    expect(status.stdout).toContain('Libraries GitOps manages: /acme/widgets.')
    expect(status.stdout).toMatch(/Last sync .*: created 1, re-indexed 0, unchanged 0, skipped 0, pruned 0, failed 0\./)

    await writeFile(path.join(manifest.dir, 'deploy/repos.yaml'), 'repos:\n  - url: https://docs.example.com/\n    type: website\n    maxPage: 10\n')
    await git(['commit', '-qam', 'typo'], manifest.dir)
    const refused = await lectern('gitops', 'sync', '--json')
    expect(refused.exitCode).toBe(exitCodeOf('validation_error'))
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: 'validation_error', message: expect.stringContaining('repos[0]: "maxPage" is not a field of this type') })
    expect((await lectern('gitops', 'status')).stdout).toContain('The last attempt failed')
    expect(JSON.parse((await lectern('gitops', 'status', '--json')).stdout).managed).toEqual([{ libraryId: '/acme/widgets', syncedAt: expect.any(String) }])

    expect((await app.runtime.store.libraries.byId('/acme/widgets'))?.options).toMatchObject({ folders: ['docs'] })
    // One sync at a time across the processes of a data directory: while this process syncs (holds the task's lock), the CLI's is refused.
    const beside = await app.runtime.store.exclusively('gitops-sync', async () => await lectern('gitops', 'sync', '--json'))
    expect(beside.ran && beside.value.exitCode, beside.ran ? beside.value.stdout + beside.value.stderr : '').toBe(exitCodeOf('sync_running'))
    expect(beside.ran && JSON.parse(beside.value.stdout)).toMatchObject({ error: 'sync_running' })
    const cloud = await runCli(['gitops', 'sync', '--data-dir', dataDir, '--json'], { LECTERN_MODE: 'cloud' })
    expect(cloud.exitCode).toBe(exitCodeOf('forbidden'))
  })
})
