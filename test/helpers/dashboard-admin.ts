/** An admin for a dashboard test, created by the CLI before the server starts, and signed in through the page. */
import { execa } from 'execa'
import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import { PROJECT_ROOT } from './cli.js'
import { databaseEnvFor } from './stores.js'

export const ADMIN_EMAIL = 'ops@example.com'
export const ADMIN_PASSWORD = 'correct horse battery'

export async function createAdmin(dataDir: string): Promise<void> {
  await execa(process.execPath, ['bin/run.js', 'admin', 'create', ADMIN_EMAIL, '--data-dir', dataDir], { cwd: PROJECT_ROOT, input: `${ADMIN_PASSWORD}\n`, env: databaseEnvFor(dataDir) })
}

export async function signIn(page: Page, path: string): Promise<void> {
  await page.goto(path)
  await page.getByLabel('Email', { exact: true }).fill(ADMIN_EMAIL)
  await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true)
}
