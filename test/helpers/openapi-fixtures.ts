/** The OpenAPI fixtures, served by a real HTTP server on 127.0.0.1 as YAML, JSON, HTML and errors. */
import { readFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { parse as parseYaml, stringify } from 'yaml'
import type { Defer } from './tmp.js'

const FIXTURES = new URL('../fixtures/openapi/', import.meta.url)

export const PETSHOP_YAML = readFileSync(new URL('petshop-3.1.yaml', FIXTURES), 'utf8')
export const PETSTORE_JSON = readFileSync(new URL('petstore-2.0.json', FIXTURES), 'utf8')

/** 40 schemas that all reference each other: a naive example walk would never end. */
export function tangledSpec(): string {
  const names = Array.from({ length: 40 }, (_, i) => `Node${i}`)
  const schemas = Object.fromEntries(
    names.map((name) => [name, { type: 'object', properties: Object.fromEntries(names.map((other) => [other.toLowerCase(), { $ref: `#/components/schemas/${other}` }])) }]),
  )
  const paths = Object.fromEntries(
    names.map((name) => [
      `/${name.toLowerCase()}`,
      {
        post: {
          operationId: `create${name}`,
          requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } } },
        },
      },
    ]),
  )
  return JSON.stringify({ openapi: '3.0.3', info: { title: 'Tangled', version: '1' }, paths, components: { schemas } })
}

const INVALID = 'openapi: 3.0.3\ninfo:\n  title: Broken\npaths:\n  /things:\n    get:\n      summary: No responses here\n'
const HTML = '<!DOCTYPE html>\n<html><head><title>API reference</title></head><body><div id="swagger-ui"></div></body></html>\n'

const ROUTES: Record<string, { type: string; body: () => string }> = {
  '/petshop.yaml': { type: 'application/yaml', body: () => PETSHOP_YAML },
  '/petshop.json': { type: 'application/json', body: () => JSON.stringify(parseYaml(PETSHOP_YAML)) },
  '/petstore.json': { type: 'application/json', body: () => PETSTORE_JSON },
  '/petstore.yaml': { type: 'text/yaml', body: () => stringify(JSON.parse(PETSTORE_JSON)) },
  '/tangled.json': { type: 'application/json', body: tangledSpec },
  '/invalid.yaml': { type: 'application/yaml', body: () => INVALID },
  // Served as YAML on purpose: the reader must recognise the page by its content too.
  '/docs.yaml': { type: 'text/plain', body: () => HTML },
  '/docs': { type: 'text/html; charset=utf-8', body: () => HTML },
}

/** Starts the server; returns its base URL. `/missing.yaml` and anything unknown answer 404. */
export async function serveOpenApiFixtures(defer: Defer): Promise<string> {
  const server = http.createServer((req, res) => {
    const route = ROUTES[(req.url ?? '').split('?')[0]]
    if (!route) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
    res.writeHead(200, { 'content-type': route.type }).end(route.body())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  defer(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
