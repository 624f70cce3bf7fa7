/**
 * The OpenAPI source reader: one spec (Swagger 2.0, OpenAPI 3.0 or 3.1, JSON or YAML) fetched by
 * URL or read from an upload, validated and dereferenced, turned straight into snippets: a code
 * snippet per operation (a runnable curl call and the shape of its answer) and info snippets for
 * the overview, each auth scheme and each tag. Nothing goes through the Markdown parsers.
 */
import { createHash } from 'node:crypto'
import SwaggerParser from '@apidevtools/swagger-parser'
import { parse as parseYaml } from 'yaml'
import { z } from 'zod'
import { LecternError } from '../errors.js'
import type { ApiSnippets, ParsedCodeSnippet, ParsedInfoSnippet, ParsedSnippet } from '../parse/types.js'
import { exampleOf, type Json, type Schema } from './openapi-examples.js'
import type { FetchedSource, SourceContext, SourceReader } from './types.js'
import { readUpload } from './uploads.js'
import { ParseFailure } from '../parse/failure.js'

export const openApiSpec = z
  .object({
    type: z.literal('openapi'),
    url: z.string().url().optional(),
    /** A file name in the data dir's uploads/ folder. */
    file: z.string().min(1).optional(),
    /** A title or description the submitter chose; they win over the spec's info. */
    title: z.string().optional(),
    description: z.string().optional(),
  })
  .refine((spec) => (spec.url === undefined) !== (spec.file === undefined), { message: 'an OpenAPI source needs exactly one of url and file' })

export type OpenApiSpec = z.infer<typeof openApiSpec>

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const
const MAX_ERROR_CHARS = 1500

interface Loaded {
  text: string
  /** The spec URL, or `upload:<name>`: what snippet sources point to. */
  origin: string
}

interface Param {
  name: string
  in: string
  required: boolean
  description: string
  schema: Schema
}

interface Body {
  contentType: string
  example: unknown
}

interface Operation {
  method: string
  path: string
  anchor: string
  summary: string
  description: string
  tags: string[]
  params: Param[]
  body?: Body
  response?: { status: string; example: unknown }
  responses: Array<{ status: string; description: string }>
  security: Json[]
}

interface AuthScheme {
  name: string
  type: string
  scheme?: string
  in?: string
  paramName?: string
  description: string
}

interface Api {
  title: string
  version: string
  description: string
  servers: Array<{ url: string; description: string }>
  schemes: Map<string, AuthScheme>
  tags: Array<{ name: string; description: string }>
  operations: Operation[]
}

const obj = (value: unknown): Json => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {})
const str = (value: unknown): string => (typeof value === 'string' ? value : '')
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])

async function load(spec: OpenApiSpec, ctx: SourceContext): Promise<Loaded> {
  if (spec.url !== undefined) {
    ctx.progress(`fetching ${spec.url}`)
    const response = await ctx.http.get(spec.url, { headers: { accept: 'application/json, application/yaml, text/yaml, */*' }, signal: ctx.signal })
    const text = response.text()
    if (looksLikeHtml(text, str(response.headers['content-type']))) {
      throw new LecternError('validation_error', `${spec.url} answered with an HTML page, not an OpenAPI spec; give the URL of the raw JSON or YAML file.`)
    }
    return { text, origin: spec.url }
  }
  const name = spec.file!
  const text = await readUpload(ctx.store, name)
  if (text === undefined) throw new LecternError('source_unreachable', `The uploaded spec ${name} is missing; upload it again.`)
  if (looksLikeHtml(text, '')) throw new LecternError('validation_error', `The uploaded file ${name} is an HTML page, not an OpenAPI spec.`)
  return { text, origin: `upload:${name}` }
}

function looksLikeHtml(text: string, contentType: string): boolean {
  return contentType.includes('text/html') || /^\s*(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text)
}

/** JSON or YAML into a document that at least claims to be OpenAPI or Swagger. */
function parseText(text: string, origin: string): Json {
  let doc: unknown
  try {
    doc = /^\s*\{/.test(text) ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 1000 })
  } catch (err) {
    throw new LecternError('validation_error', `${origin} is neither valid JSON nor YAML: ${(err as Error).message.split('\n')[0]}`)
  }
  const root = obj(doc)
  if (typeof root.openapi !== 'string' && root.swagger === undefined) {
    throw new LecternError('validation_error', `${origin} is not an OpenAPI spec: it has no "openapi" or "swagger" version field.`)
  }
  return root
}

/**
 * Validates and dereferences. External $refs stay unresolved: the parser would fetch them itself,
 * around the HTTP client's guard and limits. Cyclic $refs become cyclic objects (`circular: true`),
 * which exampleOf cuts with its ancestor set and depth bound.
 */
async function validate(doc: Json, origin: string): Promise<Json> {
  try {
    return obj(await SwaggerParser.validate(doc as never, { resolve: { external: false }, dereference: { circular: true } }))
  } catch (err) {
    // The parser says "Swagger" for every version and puts one problem per line.
    const problems = (err as Error).message.replace(/^Swagger schema validation failed\.\s*/, '').split('\n').map((l) => l.trim()).filter(Boolean)
    const why = problems.join('; ').slice(0, MAX_ERROR_CHARS)
    throw new LecternError('validation_error', `The OpenAPI spec at ${origin} is invalid: ${why}`)
  }
}

function serversOf(doc: Json, origin: string): Api['servers'] {
  const base = origin.startsWith('upload:') ? undefined : origin
  if (doc.swagger !== undefined) {
    const host = str(doc.host)
    const scheme = str(list(doc.schemes)[0]) || 'https'
    if (host) return [{ url: `${scheme}://${host}${str(doc.basePath).replace(/\/$/, '')}`, description: '' }]
    return [{ url: base ? new URL(str(doc.basePath) || '/', base).toString().replace(/\/$/, '') : '$BASE_URL', description: '' }]
  }
  const servers = list(doc.servers).map(obj).filter((s) => str(s.url))
  if (servers.length === 0) return [{ url: base ? new URL(base).origin : '$BASE_URL', description: '' }]
  return servers.map((s) => ({ url: absoluteServerUrl(withVariables(str(s.url), obj(s.variables)), base), description: str(s.description) }))
}

function withVariables(url: string, variables: Json): string {
  return url.replace(/\{([^}]+)\}/g, (whole, name: string) => str(obj(variables[name]).default) || whole)
}

function absoluteServerUrl(url: string, base: string | undefined): string {
  if (/^https?:\/\//i.test(url)) return url.replace(/\/$/, '')
  return base ? new URL(url, base).toString().replace(/\/$/, '') : `$BASE_URL${url.replace(/\/$/, '')}`
}

function schemesOf(doc: Json): Map<string, AuthScheme> {
  const defs = obj(doc.swagger !== undefined ? doc.securityDefinitions : obj(doc.components).securitySchemes)
  const schemes = new Map<string, AuthScheme>()
  for (const [name, raw] of Object.entries(defs)) {
    const def = obj(raw)
    schemes.set(name, {
      name,
      // Swagger 2.0 "basic" is OpenAPI 3's http + basic.
      type: str(def.type) === 'basic' ? 'http' : str(def.type),
      scheme: str(def.type) === 'basic' ? 'basic' : str(def.scheme).toLowerCase() || undefined,
      in: str(def.in) || undefined,
      paramName: str(def.name) || undefined,
      description: str(def.description),
    })
  }
  return schemes
}

function paramOf(raw: unknown): Param {
  const p = obj(raw)
  // Swagger 2.0 puts type, format and enum on the parameter itself.
  const schema = p.schema !== undefined ? obj(p.schema) : p
  return { name: str(p.name), in: str(p.in), required: p.required === true, description: str(p.description), schema }
}

/** Path-level parameters apply unless the operation redefines the same name and location. */
function mergeParams(pathLevel: unknown[], opLevel: unknown[]): Param[] {
  const own = opLevel.map(paramOf)
  const inherited = pathLevel.map(paramOf).filter((p) => !own.some((o) => o.name === p.name && o.in === p.in))
  return [...inherited, ...own]
}

/** The JSON media type when there is one, else the first. */
function pickMedia(content: Json): [string, Json] | undefined {
  const entries = Object.entries(content)
  const json = entries.find(([type]) => /[/+]json\b/i.test(type))
  const chosen = json ?? entries[0]
  return chosen ? [chosen[0], obj(chosen[1])] : undefined
}

function mediaExample(media: Json, mode: 'request' | 'response'): unknown {
  if (media.example !== undefined) return media.example
  const first = Object.values(obj(media.examples))[0]
  if (first !== undefined && obj(first).value !== undefined) return obj(first).value
  return exampleOf(obj(media.schema), mode)
}

function bodyOf(op: Json, params: Param[], consumes: string[]): Body | undefined {
  const content = obj(obj(op.requestBody).content)
  const media = pickMedia(content)
  if (media) return { contentType: media[0], example: mediaExample(media[1], 'request') }
  // Swagger 2.0: a body parameter, or formData parameters.
  const body = params.find((p) => p.in === 'body')
  if (body) return { contentType: consumes.find((c) => /json/i.test(c)) ?? 'application/json', example: exampleOf(body.schema, 'request') }
  const form = params.filter((p) => p.in === 'formData')
  if (form.length === 0) return undefined
  const contentType = form.some((p) => p.schema.type === 'file') || consumes.includes('multipart/form-data') ? 'multipart/form-data' : 'application/x-www-form-urlencoded'
  return { contentType, example: Object.fromEntries(form.map((p) => [p.name, p.schema.type === 'file' ? '@file' : exampleOf(p.schema, 'request')])) }
}

function responseOf(op: Json, produces: string[]): Operation['response'] {
  const responses = obj(op.responses)
  const status = Object.keys(responses).sort().find((code) => /^2/.test(code))
  if (!status) return undefined
  const response = obj(responses[status])
  const media = pickMedia(obj(response.content))
  if (media) return /json/i.test(media[0]) ? { status, example: mediaExample(media[1], 'response') } : undefined
  const swaggerExample = obj(response.examples)['application/json']
  if (swaggerExample !== undefined) return { status, example: swaggerExample }
  if (response.schema === undefined || !produces.some((p) => /json/i.test(p))) return undefined
  return { status, example: exampleOf(obj(response.schema), 'response') }
}

function operationsOf(doc: Json): Operation[] {
  const globalSecurity = list(doc.security).map(obj)
  const consumes = list(doc.consumes).map(str)
  const produces = list(doc.produces).map(str)
  const operations: Operation[] = []
  for (const [route, rawItem] of Object.entries(obj(doc.paths))) {
    const item = obj(rawItem)
    for (const method of METHODS) {
      if (item[method] === undefined) continue
      const op = obj(item[method])
      const params = mergeParams(list(item.parameters), list(op.parameters))
      const opProduces = op.produces !== undefined ? list(op.produces).map(str) : produces.length > 0 ? produces : ['application/json']
      operations.push({
        method: method.toUpperCase(),
        path: route,
        anchor: str(op.operationId) || `${method}-${route}`,
        summary: str(op.summary),
        description: str(op.description),
        tags: list(op.tags).map(str).filter(Boolean),
        params,
        body: bodyOf(op, params, op.consumes !== undefined ? list(op.consumes).map(str) : consumes),
        response: responseOf(op, opProduces),
        responses: Object.entries(obj(op.responses)).map(([status, r]) => ({ status, description: str(obj(r).description) })),
        security: op.security !== undefined ? list(op.security).map(obj) : globalSecurity,
      })
    }
  }
  return operations
}

function modelOf(doc: Json, origin: string): Api {
  const info = obj(doc.info)
  const operations = operationsOf(doc)
  const declared = list(doc.tags).map(obj).map((t) => ({ name: str(t.name), description: str(t.description) }))
  // Tags used by operations but never declared still get their own snippet.
  const used = operations.flatMap((o) => o.tags).filter((name) => !declared.some((t) => t.name === name))
  return {
    title: str(info.title) || 'API',
    version: str(info.version),
    description: str(info.description),
    servers: serversOf(doc, origin),
    schemes: schemesOf(doc),
    tags: [...declared, ...[...new Set(used)].map((name) => ({ name, description: '' }))],
    operations,
  }
}

/** curl arguments that authenticate with a scheme, using shell variables as placeholders. */
function authArgs(scheme: AuthScheme): { headers: string[]; query: string[]; other: string[] } {
  const none = { headers: [], query: [], other: [] }
  if (scheme.type === 'http' && scheme.scheme === 'basic') return { ...none, other: ['-u "$USERNAME:$PASSWORD"'] }
  if (scheme.type === 'http') return { ...none, headers: [`Authorization: ${scheme.scheme === 'bearer' ? 'Bearer' : (scheme.scheme ?? 'Bearer')} $API_TOKEN`] }
  if (scheme.type === 'apiKey' && scheme.in === 'query') return { ...none, query: [`${scheme.paramName}=$API_KEY`] }
  if (scheme.type === 'apiKey' && scheme.in === 'cookie') return { ...none, other: [`-b "${scheme.paramName}=$API_KEY"`] }
  if (scheme.type === 'apiKey') return { ...none, headers: [`${scheme.paramName}: $API_KEY`] }
  // oauth2 and openIdConnect both end in a bearer access token.
  return { ...none, headers: ['Authorization: Bearer $ACCESS_TOKEN'] }
}

function describeAuth(scheme: AuthScheme): string {
  const { headers, query, other } = authArgs(scheme)
  const how = [...headers.map((h) => `send the header \`${h}\``), ...query.map((q) => `add the query parameter \`${q}\``), ...other.map((o) => `pass curl \`${o}\``)]
  const kind = scheme.type === 'http' ? `HTTP ${scheme.scheme ?? ''} authentication` : scheme.type === 'apiKey' ? `API key in the ${scheme.in} "${scheme.paramName}"` : `${scheme.type} authentication`
  return `${kind}: ${how.join(', ')}.`
}

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`

function paramValue(param: Param): string {
  const value = exampleOf(param.schema, 'request')
  return encodeURIComponent(typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value ?? param.name))
}

function bodyArgs(body: Body): string[] {
  if (body.contentType === 'multipart/form-data' || body.contentType === 'application/x-www-form-urlencoded') {
    const flag = body.contentType === 'multipart/form-data' ? '-F' : '--data-urlencode'
    return Object.entries(obj(body.example)).map(([key, value]) => `${flag} ${shellQuote(`${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)}`)
  }
  const text = typeof body.example === 'string' ? body.example : JSON.stringify(body.example ?? {}, null, 2)
  return [`-H "Content-Type: ${body.contentType}"`, `-d ${shellQuote(text)}`]
}

function curlOf(op: Operation, api: Api): string {
  const server = api.servers[0]?.url ?? '$BASE_URL'
  const route = op.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const param = op.params.find((p) => p.in === 'path' && p.name === name)
    return param ? paramValue(param) : whole
  })
  const auth = (Object.keys(op.security[0] ?? {}) as string[]).map((name) => api.schemes.get(name)).filter((s): s is AuthScheme => s !== undefined).map(authArgs)
  const query = [
    ...op.params.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${paramValue(p)}`),
    ...auth.flatMap((a) => a.query),
  ]
  const url = `${server}${route}${query.length > 0 ? `?${query.join('&')}` : ''}`
  const args = [
    `curl -X ${op.method} "${url}"`,
    ...auth.flatMap((a) => a.headers).map((h) => `-H "${h}"`),
    ...auth.flatMap((a) => a.other),
    ...op.params.filter((p) => p.in === 'header' && p.required).map((p) => `-H "${p.name}: ${decodeURIComponent(paramValue(p))}"`),
    ...(op.body ? bodyArgs(op.body) : []),
  ]
  return args.join(' \\\n  ')
}

function paramLine(p: Param): string {
  const type = str(p.schema.type) || (p.in === 'body' ? 'object' : 'string')
  const values = Array.isArray(p.schema.enum) ? ` (one of ${p.schema.enum.map((v) => JSON.stringify(v)).join(', ')})` : ''
  return `- \`${p.name}\` (${p.in}, ${type}${p.required ? ', required' : ''})${p.description ? `: ${p.description}` : ''}${values}`
}

function operationSnippet(op: Operation, api: Api): ParsedCodeSnippet {
  const title = `${op.method} ${op.path}${op.summary ? `: ${op.summary}` : ''}`
  const params = op.params.filter((p) => p.in !== 'body')
  const description = [
    op.summary,
    op.description !== op.summary ? op.description : '',
    params.length > 0 ? `Parameters:\n${params.map(paramLine).join('\n')}` : '',
    op.body ? `Request body: ${op.body.contentType}.` : '',
    op.responses.length > 0 ? `Responses: ${op.responses.map((r) => `${r.status}${r.description ? ` ${r.description.replace(/\.$/, '')}` : ''}`).join('; ')}.` : '',
  ]
    .filter(Boolean)
    .join('\n\n')
  const codeList = [{ language: 'bash', code: curlOf(op, api) }]
  if (op.response && op.response.example !== undefined) {
    codeList.push({ language: 'json', code: JSON.stringify(op.response.example, null, 2) })
  }
  const group = groupOf(op)
  return { kind: 'code', title, description, breadcrumb: group, pageTitle: group, anchor: op.anchor, codeList }
}

/**
 * The "page" of an operation: its first tag, else its first path segment, as API reference
 * sites group them. Not the API title: on every snippet it would tell none apart, and its words
 * (the "Pet" of a pet store) would stop counting in search.
 */
function groupOf(op: Operation): string {
  return op.tags[0] ?? (op.path.split('/').find((segment) => segment && !segment.startsWith('{')) || op.path)
}

function info(pageTitle: string, anchor: string, content: string): ParsedInfoSnippet {
  return { kind: 'info', breadcrumb: pageTitle, pageTitle, anchor, content }
}

function overviewSnippet(api: Api): ParsedInfoSnippet {
  const parts = [
    `# ${api.title}${api.version ? ` (version ${api.version})` : ''}`,
    api.description,
    `Servers:\n${api.servers.map((s) => `- ${s.url}${s.description ? `: ${s.description}` : ''}`).join('\n')}`,
    api.schemes.size > 0 ? `Authentication: ${[...api.schemes.values()].map((s) => `${s.name} (${describeAuth(s)})`).join('; ')}` : '',
    api.tags.length > 0 ? `Tags: ${api.tags.map((t) => t.name).join(', ')}.` : '',
    `${api.operations.length} operations.`,
  ]
  return info(api.title, 'overview', parts.filter(Boolean).join('\n\n'))
}

function authSnippet(scheme: AuthScheme): ParsedInfoSnippet {
  const content = [`## Authentication: ${scheme.name}`, scheme.description, `Use ${describeAuth(scheme)}`].filter(Boolean).join('\n\n')
  return info(`Authentication: ${scheme.name}`, `auth-${scheme.name}`, content)
}

function tagSnippet(api: Api, tag: Api['tags'][number]): ParsedInfoSnippet {
  const ops = api.operations.filter((o) => o.tags.includes(tag.name))
  const lines = ops.map((o) => `- ${o.method} ${o.path}${o.summary ? `: ${o.summary}` : ''}`)
  const content = [`## ${tag.name}`, tag.description, lines.length > 0 ? `Operations:\n${lines.join('\n')}` : ''].filter(Boolean).join('\n\n')
  return info(tag.name, `tag-${tag.name}`, content)
}

function snippetsOfApi(api: Api): ParsedSnippet[] {
  return [
    overviewSnippet(api),
    ...[...api.schemes.values()].map(authSnippet),
    ...api.tags.map((t) => tagSnippet(api, t)),
    ...api.operations.map((o) => operationSnippet(o, api)),
  ]
}

/** The first sentence of a description, at most 300 characters. */
function shortDescription(text: string): string | undefined {
  const flat = text.replace(/\s+/g, ' ').trim()
  if (!flat) return undefined
  const sentence = /^(.+?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat
  return sentence.length > 300 ? `${sentence.slice(0, 297)}...` : sentence
}

export const readOpenApi: SourceReader<{ type: string } & Record<string, unknown>> = async (raw, ctx): Promise<FetchedSource> => {
  const parsed = openApiSpec.safeParse(raw)
  if (!parsed.success) throw new LecternError('validation_error', `Invalid OpenAPI source: ${parsed.error.issues.map((i) => i.message).join('; ')}`)
  const spec = parsed.data
  const { text, origin } = await load(spec, ctx)
  const revision = createHash('sha256').update(text).digest('hex')
  if (ctx.previousRevision === revision) return { documents: [], locate: () => origin, revision, unchanged: true }
  ctx.progress('reading the spec')
  let api: ApiSnippets
  try {
    api = await ctx.parse('openapi', { text, origin })
  } catch (err) {
    if (err instanceof ParseFailure) throw new LecternError(err.overBudget ? 'timeout' : 'validation_error', `The OpenAPI spec at ${origin} could not be read: it ${err.reason}.`)
    throw err
  }
  const file = spec.file ?? 'openapi'
  return {
    documents: [],
    built: api.snippets.map((snippet) => ({ path: file, snippet })),
    locate: (_path, anchor) => `${origin}#${anchor}`,
    title: spec.title || api.title,
    description: spec.description || shortDescription(api.description),
    revision,
  }
}

/** Parses, validates and reads a spec into its snippets; a spec that is none fails with `validation_error`. */
export async function openApiSnippets(text: string, origin: string): Promise<ApiSnippets> {
  const api = modelOf(await validate(parseText(text, origin), origin), origin)
  return { title: api.title, description: api.description, snippets: snippetsOfApi(api) }
}
