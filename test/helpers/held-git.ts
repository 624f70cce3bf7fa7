/**
 * A git host whose fetches can be held open, to keep an ingest job running for as long as a
 * test needs (a real git server, test/helpers/git-server.ts, serving `<remotes>/<repo>`).
 * Repositories under /acme/ need the token (as Basic credentials, the way Lectern's git sends
 * it); repositories under /echo/ fail every request with an error that quotes the token and the
 * Authorization header back, as a hostile or careless host might.
 */
import { startGitServer } from './git-server.js'
import type { Defer } from './tmp.js'

export const GIT_TOKEN = 'ghp_jobsApiT0kenValue42'
export const GIT_BASIC = Buffer.from(`x-access-token:${GIT_TOKEN}`).toString('base64')

export interface HeldGitHost {
  url: string
  /** While true, every upload-pack request (git's ls-refs and fetch) is received and never answered. */
  hold: boolean
  /** Upload-pack requests received while holding. */
  held: number
  /** `GIT_CONFIG_*` variables sending `https://github.com/acme/` and `https://github.com/echo/` here. */
  env: Record<string, string>
}

export async function startHeldGitHost(remotes: string, defer: Defer): Promise<HeldGitHost> {
  const host: HeldGitHost = { url: '', hold: false, held: 0, env: {} }
  const server = await startGitServer(remotes, {
    defer,
    route: (req, res, url) => {
      if (url.pathname.startsWith('/echo/')) {
        const pkt = (s: string) => `${(s.length + 4).toString(16).padStart(4, '0')}${s}`
        res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' })
        res.end(pkt(`ERR access denied for ${GIT_TOKEN}; Authorization: ${req.headers.authorization ?? 'none'}\n`))
        return undefined
      }
      if (req.headers.authorization !== `Basic ${GIT_BASIC}`) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="test"' }).end()
        return undefined
      }
      if (host.hold && url.pathname.endsWith('/git-upload-pack')) {
        host.held++
        return undefined
      }
      return url.pathname.replace(/^\/acme/, '')
    },
  })
  host.url = server.url
  host.env = {
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: `url.${server.url}/acme/.insteadOf`,
    GIT_CONFIG_VALUE_0: 'https://github.com/acme/',
    GIT_CONFIG_KEY_1: `url.${server.url}/echo/.insteadOf`,
    GIT_CONFIG_VALUE_1: 'https://github.com/echo/',
  }
  return host
}
