/**
 * The transports of every outbound request, each routed by proxyFor() (proxy.ts): an undici
 * dispatcher for the sources' HTTP client and the embedders' fetch, and a Node agent for the AWS
 * SDK's S3 client. http:// URLs go to an HTTP proxy as absolute-URI requests, https:// URLs
 * through a CONNECT tunnel. Connect options (the cloud-mode guard's lookup) apply to direct
 * connections only: the proxy is the administrator's, usually on a private address.
 */
import type http from 'node:http'
import { ProxyAgent as NodeProxyAgent } from 'proxy-agent'
import { Agent, Dispatcher, ProxyAgent, fetch as undiciFetch } from 'undici'
import { hasProxy, proxyFor, readProxySettings, type ProxySettings } from './proxy.js'

export class OutboundDispatcher extends Dispatcher {
  private readonly direct: Agent
  private readonly proxies = new Map<string, ProxyAgent>()

  constructor(
    private readonly settings: ProxySettings,
    connect?: Agent.Options['connect'],
  ) {
    super()
    this.direct = new Agent(connect ? { connect } : {})
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const proxy = options.origin === undefined ? undefined : proxyFor(String(options.origin), this.settings)
    return (proxy ? this.through(proxy) : this.direct).dispatch(options, handler)
  }

  private through(proxy: URL): ProxyAgent {
    let agent = this.proxies.get(proxy.href)
    if (!agent) {
      // proxyTunnel false: plain http:// requests go to the proxy as `GET http://host/path`, as curl sends them.
      agent = new ProxyAgent({ uri: proxy.href, proxyTunnel: false })
      this.proxies.set(proxy.href, agent)
    }
    return agent
  }

  private all(): Dispatcher[] {
    return [this.direct, ...this.proxies.values()]
  }

  override close(): Promise<void>
  override close(callback: () => void): void
  override close(callback?: () => void): Promise<void> | void {
    const closed = Promise.all(this.all().map((d) => d.close())).then(() => undefined)
    if (!callback) return closed
    void closed.then(callback)
  }

  override destroy(): Promise<void>
  override destroy(err: Error | null): Promise<void>
  override destroy(callback: () => void): void
  override destroy(err: Error | null, callback: () => void): void
  override destroy(first?: Error | null | (() => void), second?: () => void): Promise<void> | void {
    const err = typeof first === 'function' ? null : (first ?? null)
    const callback = typeof first === 'function' ? first : second
    const destroyed = Promise.all(this.all().map((d) => d.destroy(err))).then(() => undefined)
    if (!callback) return destroyed
    void destroyed.then(callback)
  }
}

let shared: { key: string; dispatcher: OutboundDispatcher } | undefined
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY']

/** One dispatcher per process, built anew only when the proxy variables change. */
export function outboundDispatcher(): OutboundDispatcher {
  const key = PROXY_VARIABLES.map((name) => process.env[name] ?? '').join('\n')
  if (shared?.key !== key) {
    void shared?.dispatcher.close()
    shared = { key, dispatcher: new OutboundDispatcher(readProxySettings()) }
  }
  return shared.dispatcher
}

/** fetch through the process's outbound dispatcher, for clients that take a fetch (ollama). */
export const outboundFetch = ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
  undiciFetch(input, { ...init, dispatcher: outboundDispatcher() })) as unknown as typeof fetch

/** A Node agent for clients built on node:http (the AWS SDK), or undefined when no proxy is set. */
export function outboundNodeAgent(settings: ProxySettings = readProxySettings()): http.Agent | undefined {
  if (!hasProxy(settings)) return undefined
  return new NodeProxyAgent({ getProxyForUrl: (url: string) => proxyFor(url, settings)?.href ?? '' })
}
