/**
 * A real browser for the dashboard's tests: Debian's Chromium driven by playwright-core, one per
 * test file, a fresh context (cookies, storage) per test. Every page records what the browser
 * refused under the Content-Security-Policy, every uncaught script error and every asset that did
 * not load, so a journey can assert that it ran with none.
 */
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, onTestFinished } from 'vitest'
import { PROJECT_ROOT } from './cli.js'
import type { HTMLInputElement, InPage } from './in-page.js'
import { requireSystemCommand } from './system.js'
import type { Defer } from './tmp.js'

const CHROMIUM = process.env.LECTERN_CHROMIUM_PATH ?? '/usr/bin/chromium'

let browser: Browser | undefined

export interface WatchedPage {
  page: Page
  /** CSP violations and script errors seen so far. */
  problems: string[]
}

/**
 * A page in a fresh context, closed by `defer` (the test's end by default; a suite's teardown for
 * a page opened in beforeAll, registered after its server so it closes first): a page left open
 * keeps a keep-alive connection, and an in-process server's close would wait for it.
 */
export async function openPage(baseURL: string, defer: Defer = onTestFinished): Promise<WatchedPage> {
  if (!browser) {
    requireSystemCommand(CHROMIUM, 'chromium')
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] })
    afterAll(async () => {
      await browser?.close()
      browser = undefined
    })
  }
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 900 } })
  defer(() => context.close())
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL })
  // Below the test timeout, so a missing element fails with playwright's own message.
  context.setDefaultTimeout(15_000)
  const page = await context.newPage()
  const problems: string[] = []
  page.on('console', (message) => {
    // An API refusal the page shows (a wrong password's 401) is logged by Chromium too: not a fault.
    if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) problems.push(message.text())
  })
  // An API call may fail on purpose (a server restarting after a restore): the page handles those.
  const isAsset = (url: string) => new URL(url).pathname.startsWith('/assets/')
  // A fetch the browser dropped because the page navigated on (net::ERR_ABORTED) is no broken
  // asset; a missing one answers 4xx, which the response listener catches.
  page.on('requestfailed', (request) => {
    const why = request.failure()?.errorText ?? 'failed'
    if (isAsset(request.url()) && why !== 'net::ERR_ABORTED') problems.push(`asset ${request.url()}: ${why}`)
  })
  page.on('response', (response) => {
    if (isAsset(response.url()) && response.status() >= 400) problems.push(`asset ${response.url()}: ${response.status()}`)
  })
  page.on('pageerror', (err) => problems.push(`${err.name}: ${err.message}`))
  return { page, problems }
}

/** With LECTERN_SCREENSHOTS=1 (npm run screenshots), saves the page to docs/dashboard/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.LECTERN_SCREENSHOTS !== '1') return
  const dir = path.join(PROJECT_ROOT, 'docs', 'dashboard')
  await mkdir(dir, { recursive: true })
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true })
}

/** Form controls on the page that a screen reader could not name: no label, no aria-label, no text. */
export function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const { document } = globalThis as unknown as InPage
    return [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')]
      .filter((control) => {
        const labelled = (control as HTMLInputElement).labels?.length || control.getAttribute('aria-label') || control.getAttribute('aria-labelledby')
        return !labelled && !(control.tagName === 'BUTTON' && control.textContent?.trim())
      })
      .map((control) => control.outerHTML.slice(0, 120))
  })
}
