/**
 * The outbound proxy decision from the environment: which variable counts, which URLs bypass the
 * proxy, what a bad value says, and the same decision in Chromium's flags.
 */
import { describe, expect, it } from 'vitest'
import { chromiumProxy, describeProxy, proxyFor, readProxySettings } from '../../src/net/proxy.js'

const via = (url: string, env: Record<string, string>) => proxyFor(url, readProxySettings(env))?.href

describe('readProxySettings', () => {
  it('reads the lower-case name first, the upper-case one else, and takes an empty value as unset', () => {
    expect(via('http://a.test/', { http_proxy: 'http://lower:1', HTTP_PROXY: 'http://upper:2' })).toBe('http://lower:1/')
    expect(via('http://a.test/', { HTTP_PROXY: 'http://upper:2' })).toBe('http://upper:2/')
    expect(via('http://a.test/', { http_proxy: ' ', HTTP_PROXY: 'http://upper:2' })).toBe('http://upper:2/')
    expect(via('http://a.test/', {})).toBeUndefined()
  })

  it('proxies each scheme with its own variable, and a URL without scheme is http', () => {
    const env = { HTTPS_PROXY: 'proxy.corp:3128' }
    expect(via('https://a.test/', env)).toBe('http://proxy.corp:3128/')
    expect(via('http://a.test/', env)).toBeUndefined()
    expect(via('http://a.test/', { HTTP_PROXY: 'https://secure.corp:8443' })).toBe('https://secure.corp:8443/')
  })

  it('refuses a value that is not an http(s) proxy URL, naming the variable and never the password', () => {
    expect(() => readProxySettings({ https_proxy: 'http://[bad' })).toThrow(expect.objectContaining({ code: 'validation_error', message: expect.stringContaining('https_proxy is not a proxy URL') }))
    let message = ''
    try {
      readProxySettings({ HTTP_PROXY: 'socks5://me:hunter2@socks.corp:1080' })
    } catch (err) {
      message = (err as Error).message
    }
    expect(message).toContain('HTTP_PROXY names a socks5: proxy (socks5://***@socks.corp:1080)')
    expect(message).not.toContain('hunter2')
  })
})

describe('NO_PROXY', () => {
  const env = (noProxy: string) => ({ HTTP_PROXY: 'http://proxy:3128', HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: noProxy })

  it('bypasses a host and its subdomains, never a name that only ends the same', () => {
    expect(via('https://corp.example/', env('corp.example'))).toBeUndefined()
    expect(via('https://wiki.corp.example/', env('corp.example'))).toBeUndefined()
    expect(via('https://notcorp.example/', env('corp.example'))).toBe('http://proxy:3128/')
  })

  it('takes suffixes written .host or *.host, case-insensitively, separated by commas or spaces', () => {
    for (const list of ['.corp.example', '*.corp.example', 'other.test, .CORP.example', 'other.test *.corp.example']) {
      expect(via('https://Wiki.Corp.Example/', env(list)), list).toBeUndefined()
    }
  })

  it('bypasses only the port an entry names, with default ports counted', () => {
    expect(via('http://docs.test:8080/', env('docs.test:8080'))).toBeUndefined()
    expect(via('http://docs.test/', env('docs.test:8080'))).toBe('http://proxy:3128/')
    expect(via('https://docs.test/', env('docs.test:443'))).toBeUndefined()
    expect(via('http://docs.test/', env('docs.test:443'))).toBe('http://proxy:3128/')
  })

  it('matches IP addresses, IPv6 with or without brackets and port', () => {
    expect(via('http://127.0.0.1:11434/', env('127.0.0.1'))).toBeUndefined()
    expect(via('http://[::1]:11434/', env('::1'))).toBeUndefined()
    expect(via('http://[::1]:11434/', env('[::1]:11434'))).toBeUndefined()
    expect(via('http://[::1]:8000/', env('[::1]:11434'))).toBe('http://proxy:3128/')
  })

  it('bypasses everything with *, and loopback only when listed', () => {
    expect(via('https://anything.test/', env('*'))).toBeUndefined()
    expect(via('http://localhost:11434/', env(''))).toBe('http://proxy:3128/')
    expect(via('http://localhost:11434/', env('localhost,127.0.0.1'))).toBeUndefined()
    expect(via('http://localhost:11434/', { HTTP_PROXY: 'http://proxy:3128', no_proxy: 'localhost', NO_PROXY: 'other' })).toBeUndefined()
  })
})

describe('describeProxy', () => {
  it('masks user and password', () => {
    expect(describeProxy(new URL('http://me:s3cret@proxy.corp:3128'))).toBe('http://***@proxy.corp:3128')
    expect(describeProxy(new URL('http://proxy.corp:3128'))).toBe('http://proxy.corp:3128')
  })
})

describe('chromiumProxy', () => {
  it('gives Chromium a proxy per scheme and the NO_PROXY entries, loopback proxied unless listed', () => {
    const proxy = chromiumProxy(readProxySettings({ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'corp.example,10.1.2.3,[::1]:8080,docs.test:8443' }))
    expect(proxy).toEqual({
      args: [
        '--proxy-server=https=http://proxy:3128',
        '--proxy-bypass-list=<-loopback>;corp.example;*.corp.example;10.1.2.3;[::1]:8080;docs.test:8443;*.docs.test:8443',
      ],
    })
    expect(chromiumProxy(readProxySettings({ HTTP_PROXY: 'http://a:1', HTTPS_PROXY: 'http://b:2' }))?.args[0]).toBe('--proxy-server=http=http://a:1;https=http://b:2')
  })

  it('has nothing to say without a proxy or with NO_PROXY=*', () => {
    expect(chromiumProxy(readProxySettings({}))).toBeUndefined()
    expect(chromiumProxy(readProxySettings({ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '*' }))).toBeUndefined()
  })

  it('hands the credentials to Playwright, never to a flag', () => {
    const proxy = chromiumProxy(readProxySettings({ HTTPS_PROXY: 'http://me:p%40ss@proxy:3128' }))!
    expect(proxy.credentials).toEqual({ server: 'http://proxy:3128', username: 'me', password: 'p@ss' })
    expect(proxy.args.join(' ')).not.toContain('p%40ss')
    expect(proxy.args.join(' ')).not.toContain('me')
  })
})
