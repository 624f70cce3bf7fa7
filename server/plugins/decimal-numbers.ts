/**
 * Numbers in a URL (query string and path parameters) are decimal digits only. Ajv's coercion
 * turns any string JavaScript reads as a number into one: `0x1F4`, ` 600` (a `%20` before it),
 * `1e3`, `0b11`. Every route whose schema declares a numeric query or path parameter refuses such
 * a value as a validation_error before validation, naming the parameter.
 */
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { LecternError } from '../../src/errors.js'

/** An optional minus, digits without a leading zero (0 alone is fine), an optional decimal part. */
const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/

type Part = 'query' | 'params'

const PART_NAME: Record<Part, string> = { query: 'Query parameter', params: 'Path parameter' }

/** A schema's numeric properties, each with what it must be in words. */
function numericProperties(schema: unknown): Array<[string, string]> {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {}
  return Object.entries(properties).flatMap(([name, property]): Array<[string, string]> =>
    property.type === 'integer' ? [[name, 'a whole number']] : property.type === 'number' ? [[name, 'a number']] : [],
  )
}

function checker(part: Part, numeric: Array<[string, string]>) {
  return async (request: FastifyRequest): Promise<void> => {
    const values = request[part] as Record<string, unknown>
    for (const [name, kind] of numeric) {
      const value = values[name]
      for (const item of Array.isArray(value) ? value : [value]) {
        if (typeof item === 'string' && !DECIMAL.test(item)) {
          throw new LecternError('validation_error', `${PART_NAME[part]} ${name} must be ${kind} in decimal digits, not ${JSON.stringify(item)}.`)
        }
      }
    }
  }
}

async function decimalNumbers(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route: RouteOptions) => {
    const checks = [
      ['query', numericProperties(route.schema?.querystring)],
      ['params', numericProperties(route.schema?.params)],
    ]
      .filter(([, numeric]) => numeric.length > 0)
      .map(([part, numeric]) => checker(part as Part, numeric as Array<[string, string]>))
    if (checks.length === 0) return
    const existing = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation]
    route.preValidation = [...checks, ...existing]
  })
}

export default fp(decimalNumbers, { name: 'lectern-decimal-numbers' })
