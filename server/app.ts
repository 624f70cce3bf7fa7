/**
 * buildApp(): the whole Lectern HTTP application, ready and not listening, so tests can
 * `inject()` without a port and `serve` can listen with its own signals and lock.
 */
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import { resolveConfig, type ConfigOverrides, type LecternConfig, type TrustProxy } from '../src/config.js'
import { LecternError } from '../src/errors.js'
import { createSsoSource } from '../src/sso/configuration.js'
import type { JobRunner } from '../src/jobs/runner.js'
import type { RateLimitCounter } from '../src/net/rate-limit.js'
import { openRuntime, recoverDataDir, type JobRunnerKind, type Runtime } from '../src/runtime.js'
import { loggerOptions, RequestLogController } from './logger.js'
import access from './plugins/access.js'
import auth from './plugins/auth.js'
import catalogVersion from './plugins/catalog-version.js'
import decimalNumbers from './plugins/decimal-numbers.js'
import errors, { clientErrorHandler, frameworkErrors } from './plugins/errors.js'
import jsonBody from './plugins/json-body.js'
import mail from './plugins/mail.js'
import rateLimit from './plugins/rate-limit.js'
import sameOrigin from './plugins/same-origin.js'
import allowedHosts from './plugins/allowed-hosts.js'
import { hostPolicy } from '../src/net/allowed-hosts.js'
import session from './plugins/session.js'
import turns from './plugins/turns.js'
import { buildValidator } from './validators.js'
import accountsRoutes from './routes/accounts.js'
import authRoutes from './routes/auth.js'
import authMcp from './routes/auth-mcp.js'
import exportRoute from './routes/airgap/export.js'
import importRoute from './routes/airgap/import.js'
import settingsRoutes from './routes/airgap/settings.js'
import auditRoutes from './routes/audit.js'
import ssoRoutes from './routes/sso.js'
import ssoSettingsRoutes from './routes/sso-settings.js'
import gitopsRoutes from './routes/gitops.js'
import webhookRoutes from './routes/webhooks.js'
import backupRoutes from './routes/backup.js'
import dashboardConnections from './routes/dashboard/connections.js'
import dashboardDocPages from './routes/dashboard/doc-pages.js'
import dashboardExtraction from './routes/dashboard/extraction.js'
import dashboardKeys from './routes/dashboard/keys.js'
import dashboardLibraries from './routes/dashboard/libraries.js'
import dashboardPage from './routes/dashboard/page.js'
import dashboardPassword from './routes/dashboard/password.js'
import dashboardSettings from './routes/dashboard/settings.js'
import dashboardUsage from './routes/dashboard/usage.js'
import dashboardVersions from './routes/dashboard/versions.js'
import health from './routes/health.js'
import jobsRoutes from './routes/jobs.js'
import libraryAccessRoutes from './routes/library-access.js'
import mcp from './routes/mcp.js'
import add from './routes/libraries/add.js'
import addOpenApi from './routes/libraries/add-openapi.js'
import addWeb from './routes/libraries/add-web.js'
import addWorkspace from './routes/libraries/add-workspace.js'
import context from './routes/libraries/context.js'
import libraryMetrics from './routes/libraries/metrics.js'
import refresh from './routes/libraries/refresh.js'
import search from './routes/libraries/search.js'
import parseStatusRoute from './routes/parse-status.js'
import policies from './routes/policies.js'
import sessionRoutes from './routes/session.js'
import teamConnectionsRoutes from './routes/team-connections.js'
import teamKeysRoutes from './routes/team-keys.js'
import teamLibrariesRoute from './routes/team-libraries.js'
import teamPolicies from './routes/team-policies.js'
import teamSourcesRoutes from './routes/team-sources.js'
import teamsRoutes from './routes/teams.js'

declare module 'fastify' {
  interface FastifyInstance {
    runtime: Runtime
    lecternOptions: AppOptions & { config: LecternConfig; startWorker: boolean }
  }
}

export interface AppOptions extends ConfigOverrides {
  /** Run the job worker in this process (default true). Only one process per data dir may. */
  startWorker?: boolean
  /**
   * Where the worker runs jobs (default 'in-process'). `serve` uses 'process' so ingest never holds
   * the serving event loop; the job process runs the compiled dist/, so sources run through a
   * TypeScript loader (tests) keep the default. A JobRunner given here stands for the jobs of
   * another process (`serve --workers`): it relays wake-ups, and readiness follows it.
   */
  jobRunner?: JobRunnerKind | JobRunner
  /** Where engine files that do not match their rows are rebuilt, and vector indexes written from stored vectors (RuntimeOptions.engineRebuild). */
  engineRebuild?: 'thread' | 'in-process'
  /** Where requests are counted against the rate limits (default: in this process). */
  rateLimitCounter?: RateLimitCounter
  /** Called after this process dropped its cache of a snippet set, for the other processes to drop theirs. */
  onSetForgotten?: (setPk: number) => void
  /** Called when this process's job process starts or stops taking jobs, for the other processes' readiness. */
  onJobsRunning?: (running: boolean) => void
  /** The process of `serve --workers` this is (0 the primary, 1..N serving), named on every log line. */
  worker?: number
  /** Where logs go (default: nowhere, so tests stay quiet); `serve` passes its log destination. */
  logStream?: NodeJS.WritableStream | { write(line: string): void }
  /** Called after a dashboard restore is staged and answered (serve exits so a start applies it). */
  onRestoreStaged?: () => void
}

/**
 * Fastify's trustProxy, except that a hop count trusts the `hops` nearest peers, as proxy-addr
 * (Express) counts them: Fastify 5.12 treats a number as "trust nothing", which would silently
 * ignore every X-Forwarded-* header behind the proxies it was meant for.
 */
function trustedProxies(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust
  return (_address, hop) => hop < trust
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = resolveConfig(options)
  const app = Fastify({
    logger: options.logStream ? { ...loggerOptions(config.log.level, options.worker, config.mode), stream: options.logStream } : false,
    logController: new RequestLogController(),
    trustProxy: trustedProxies(config.server.trustProxy),
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    bodyLimit: 1024 * 1024,
    requestTimeout: 120_000,
    return503OnClosing: true,
    clientErrorHandler,
    frameworkErrors,
    routerOptions: { ignoreTrailingSlash: true },
    schemaController: { compilersFactory: { buildValidator } },
  })
  const runtime = await openRuntime({ config, log: app.log, jobRunner: options.jobRunner, onSetForgotten: options.onSetForgotten, onJobsRunning: options.onJobsRunning, engineRebuild: options.engineRebuild })
  app.decorate('runtime', runtime)
  // Jobs in a process of their own give way to requests in flight (src/jobs/pace.ts): each request
  // counts from its arrival to its response's close, however it ends.
  const gauge = runtime.worker.requests
  if (gauge) {
    app.server.on('request', (_request, response) => {
      gauge.started()
      response.once('close', () => gauge.ended())
    })
  }
  app.decorate('lecternOptions', { ...options, startWorker: options.startWorker ?? true, config })
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  // The router refuses a path with broken percent-encoding (frameworkErrors); its query-string
  // parser decodes one leniently, so a question would be answered for text nobody sent.
  app.addHook('onRequest', async (request) => {
    const at = request.url.indexOf('?')
    if (at !== -1 && !isDecodable(request.url.slice(at + 1))) {
      throw new LecternError('validation_error', 'The URL is not valid: its query string has broken percent-encoding.')
    }
  })
  app.addHook('onClose', async () => runtime.close())

  await app.register(errors)
  const sso = createSsoSource(runtime.store, config)
  await app.register(allowedHosts, { policy: hostPolicy(config) })
  await app.register(jsonBody)
  await app.register(decimalNumbers)
  await app.register(catalogVersion)
  await app.register(auth, { keys: runtime.store.keys, mode: config.mode })
  await app.register(session, { users: runtime.store.users })
  await app.register(sameOrigin)
  await app.register(rateLimit, { limits: config.rateLimit, counter: options.rateLimitCounter })
  await app.register(access)
  await app.register(turns)
  await app.register(
    async (api) => {
      await api.register(health)
      await api.register(search)
      await api.register(context)
      await api.register(libraryMetrics)
      await api.register(add)
      await api.register(addOpenApi)
      await api.register(addWeb)
      await api.register(addWorkspace)
      await api.register(authMcp)
      await api.register(authRoutes, { sso })
      await api.register(sessionRoutes, { sso })
      await api.register(refresh)
      await api.register(parseStatusRoute)
      await api.register(jobsRoutes)
      await api.register(settingsRoutes)
      await api.register(dashboardUsage)
      // Export exists only in the cloud, import only on-premise: the other mode answers 404.
      await api.register(config.mode === 'cloud' ? exportRoute : importRoute)
      if (config.mode === 'cloud') await api.register(policies)
      await api.register(backupRoutes, { schedule: options.startWorker ?? true, onRestoreStaged: options.onRestoreStaged })
      await api.register(dashboardLibraries)
      await api.register(dashboardVersions)
      await api.register(dashboardKeys)
      await api.register(dashboardPassword)
      await api.register(dashboardDocPages)
      await api.register(dashboardExtraction)
      await api.register(dashboardSettings)
      await api.register(dashboardConnections, { webhooks: config.mode === 'onprem' })
      await api.register(auditRoutes)
      // Self-service accounts and teamspaces exist only in the cloud; on-premise they answer 404.
      if (config.mode === 'cloud') {
        await api.register(mail)
        await api.register(accountsRoutes)
        await api.register(teamsRoutes)
        await api.register(teamPolicies)
        await api.register(teamLibrariesRoute)
        await api.register(teamKeysRoutes)
        await api.register(teamConnectionsRoutes)
        await api.register(teamSourcesRoutes)
      }
      // Library access control, single sign-on, GitOps and push webhooks are on-premise's: the cloud answers 404.
      if (config.mode === 'onprem') {
        await api.register(libraryAccessRoutes)
        await api.register(ssoRoutes, { sso })
        await api.register(ssoSettingsRoutes)
        await api.register(gitopsRoutes, { schedule: options.startWorker ?? true })
        await api.register(webhookRoutes)
      }
    },
    { prefix: '/api' },
  )
  await app.register(mcp)
  await app.register(dashboardPage)
  const warm = warmSets(app, runtime)
  await app.ready()
  warm()
  if (options.startWorker ?? true) {
    await recoverDataDir(runtime, app.log)
    await runtime.worker.start()
  }
  return app
}

/** Libraries asked in this many days are loaded at start, most asked first. */
const WARM_DAYS = 30

/**
 * Loads the most-asked libraries in the background, so their first requests after a start are
 * as fast as the rest; requests are served meanwhile, and closing stops it.
 */
function warmSets(app: FastifyInstance, runtime: Runtime): () => void {
  const stop = new AbortController()
  let warming: Promise<void> = Promise.resolve()
  app.addHook('onClose', async () => {
    stop.abort()
    await warming
  })
  return () => {
    const started = performance.now()
    warming = (async () => {
      const asked = await runtime.usage.mostAskedSets(WARM_DAYS)
      const loaded = await runtime.retriever.warm(asked, stop.signal)
      const cache = runtime.retriever.cacheStats()
      const mb = (bytes: number) => Math.round(bytes / 2 ** 20)
      const libraries = asked.length === 1 ? 'library' : 'libraries'
      const said = asked.length === 0 ? `no library was asked in the last ${WARM_DAYS} days, so none is loaded ahead` : `loaded ${loaded} of the ${asked.length} ${libraries} asked in the last ${WARM_DAYS} days, most asked first`
      app.log.info({ loaded, asked: asked.length, ms: Math.round(performance.now() - started), cache }, `${said}; up to ${mb(cache.maxBytes)} MB of libraries stay loaded in this process (--cache-size)`)
    })().catch((err: unknown) => {
      if (!stop.signal.aborted) app.log.warn({ err }, 'could not load the most-asked libraries ahead of their requests')
    })
  }
}

/**
 * Whether a query string's percent-encoding decodes: every `%` starts two hex digits, and the
 * bytes are UTF-8. A `+` (a space) never fails to decode, so it needs no replacing to check.
 */
function isDecodable(query: string): boolean {
  if (!query.includes('%')) return true
  try {
    decodeURIComponent(query)
    return true
  } catch {
    return false
  }
}

