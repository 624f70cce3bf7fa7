/**
 * Renders pages that build their content with JavaScript, in Debian's chromium driven by
 * playwright-core (the npm package's own browser download cannot run on an airgapped host).
 * One browser per crawl, one page per render, closed when the crawl ends. The browser goes
 * through the outbound proxy of HTTPS_PROXY / HTTP_PROXY / NO_PROXY, in Chromium's flags.
 */
import fs from 'node:fs'
import type { Browser } from 'playwright-core'
import { LecternError } from '../errors.js'
import { chromiumProxy, readProxySettings } from '../net/proxy.js'

/** Flags for a headless browser as root on a host without network: no sandbox, no background traffic. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export class PageRenderer {
  private constructor(private readonly browser: Browser) {}

  /** `executablePath`: the chromium.path setting (LECTERN_CHROMIUM_PATH), by default Debian's. */
  static async launch(executablePath: string): Promise<PageRenderer> {
    if (!fs.existsSync(executablePath)) {
      throw new LecternError(
        'validation_error',
        `Rendering pages needs Chromium at ${executablePath} (Debian: apt-get install chromium), or LECTERN_CHROMIUM_PATH.`,
      )
    }
    // playwright-core takes half a second to import; only a crawl with rendering loads it.
    const { chromium } = await import('playwright-core')
    const proxy = chromiumProxy(readProxySettings())
    return new PageRenderer(
      await chromium.launch({
        executablePath,
        // Chromium takes the last of a repeated flag, so these win over the ones Playwright derives from `proxy`.
        args: [...ARGS, ...(proxy?.args ?? [])],
        // Playwright answers the proxy's 407 challenge with these; Chromium has no flag for them.
        ...(proxy?.credentials ? { proxy: proxy.credentials } : {}),
        headless: true,
      }),
    )
  }

  /** The page's HTML after its scripts ran and the network went quiet (bounded by the timeout). */
  async render(url: string, timeoutMs = 30_000): Promise<string> {
    const page = await this.browser.newPage()
    try {
      await page.goto(url, { waitUntil: 'networkidle', timeout: timeoutMs })
      return await page.content()
    } finally {
      await page.close()
    }
  }

  async close(): Promise<void> {
    await this.browser.close()
  }
}
