/** Temporary directories that remove themselves when the test (or suite) that made them ends. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, onTestFinished } from 'vitest'
import { openStore } from '../../src/store/index.js'

/** Registers a teardown step: `onTestFinished` inside a test, a suite's collector in `beforeAll`. */
export type Defer = (step: () => Promise<void> | void) => void

/**
 * A teardown collector for work done in `beforeAll`, where `onTestFinished` is not available.
 * Call it at suite level (a describe body or the module), never inside `beforeAll`: vitest does
 * not run an `afterAll` registered from a hook, so servers and directories would outlive the run.
 * Its steps run in reverse order after the suite.
 */
export function suiteTeardown(): Defer {
  const steps: Array<() => Promise<void> | void> = []
  afterAll(async () => {
    for (const step of steps.reverse()) await step()
  })
  return (step) => void steps.push(step)
}

export async function tmpDir(prefix = 'lectern-test-', defer: Defer = onTestFinished): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  defer(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Sets `dir` up as the first `lectern serve` leaves a new install (database migrated, secret key), since no other command creates one. */
export async function initDataDir(dir: string): Promise<string> {
  await (await openStore(dir)).close()
  return dir
}

/**
 * A fresh data directory for one app, server or CLI run. In the PostgreSQL run of the suites its
 * install is a database of its own, already migrated (test/helpers/stores.ts).
 */
export async function tmpDataDir(defer: Defer = onTestFinished): Promise<string> {
  const dir = await tmpDir('lectern-data-', defer)
  // Imported here: stores.ts itself makes its directories with tmpDir.
  const { installDatabase } = await import('./stores.js')
  return (await installDatabase(dir, defer)) ? dir : initDataDir(dir)
}

/** Sets environment variables in this process until the defer step restores them. */
export function setProcessEnv(vars: Record<string, string>, defer: Defer = onTestFinished): void {
  const saved = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]))
  Object.assign(process.env, vars)
  defer(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  })
}

/** A temporary folder holding `files` (relative path -> content), removed when the test ends. */
export async function tmpTree(files: Record<string, string | Buffer>, prefix = 'lectern-tree-'): Promise<string> {
  const root = await tmpDir(prefix)
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), text)
  }
  return root
}
