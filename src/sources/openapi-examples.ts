/**
 * Example values synthesised from a (dereferenced) JSON schema, for request bodies, parameters
 * and responses. The spec's own examples, defaults and enums win; otherwise a value of the
 * schema's type. Dereferenced specs may hold cyclic objects (Category.parent -> Category), so a
 * schema already on the way down is cut, and so is anything deeper than MAX_DEPTH. Mutually
 * referencing schemas can still branch widely, so one example visits at most MAX_NODES schemas.
 */
export type Json = Record<string, unknown>
export type Schema = Json

const MAX_DEPTH = 6
const MAX_PROPERTIES = 25
const MAX_NODES = 500

interface Walk {
  mode: 'request' | 'response'
  ancestors: Set<Schema>
  budget: number
}

const FORMAT_EXAMPLES: Record<string, unknown> = {
  'date-time': '2024-01-01T12:00:00Z',
  date: '2024-01-01',
  time: '12:00:00',
  email: 'user@example.com',
  uri: 'https://example.com',
  url: 'https://example.com',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  byte: 'U3dhZ2dlcg==',
  binary: '<binary>',
  password: '********',
}

const asSchema = (value: unknown): Schema | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Schema) : undefined

/** `request` leaves out readOnly properties, `response` writeOnly ones. */
export function exampleOf(schema: Schema, mode: 'request' | 'response'): unknown {
  return walk(schema, { mode, ancestors: new Set(), budget: MAX_NODES }, 0)
}

function declared(schema: Schema): { found: boolean; value?: unknown } {
  if (schema.example !== undefined) return { found: true, value: schema.example }
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { found: true, value: schema.examples[0] }
  if (schema.default !== undefined) return { found: true, value: schema.default }
  if (schema.const !== undefined) return { found: true, value: schema.const }
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return { found: true, value: schema.enum[0] }
  return { found: false }
}

/** OpenAPI 3.1 allows `type: [string, 'null']`; the first non-null type describes the value. */
function typeOf(schema: Schema): string | undefined {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  if (typeof type === 'string') return type
  if (schema.properties || schema.additionalProperties) return 'object'
  if (schema.items) return 'array'
  return undefined
}

/** undefined means "no value": the caller drops the property or leaves the array empty. */
function walk(schema: Schema, state: Walk, depth: number): unknown {
  // A leftover $ref is an external reference the parser did not inline.
  if (state.ancestors.has(schema) || depth > MAX_DEPTH || state.budget <= 0 || typeof schema.$ref === 'string') return undefined
  const given = declared(schema)
  if (given.found) return given.value
  state.budget--
  state.ancestors.add(schema)
  try {
    return synthesise(schema, state, depth)
  } finally {
    state.ancestors.delete(schema)
  }
}

function synthesise(schema: Schema, state: Walk, depth: number): unknown {
  const next = (child: unknown) => {
    const sub = asSchema(child)
    return sub ? walk(sub, state, depth + 1) : undefined
  }
  if (Array.isArray(schema.allOf)) return mergeAll(schema.allOf.map((part) => next(part)), schema, next)
  const alternatives = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined
  if (alternatives && alternatives.length > 0) return next(alternatives[0])
  switch (typeOf(schema)) {
    case 'object':
      return objectOf(schema, state.mode, next)
    case 'array': {
      const item = next(schema.items)
      return item === undefined ? [] : [item]
    }
    case 'string':
      return FORMAT_EXAMPLES[String(schema.format)] ?? 'string'
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 1
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1.5
    case 'boolean':
      return true
    case 'null':
      return null
    default:
      return schema.type === 'file' ? '<binary>' : undefined
  }
}

function objectOf(schema: Schema, mode: 'request' | 'response', next: (child: unknown) => unknown): Json {
  const skip = mode === 'request' ? 'readOnly' : 'writeOnly'
  const result: Json = {}
  const properties = Object.entries(asSchema(schema.properties) ?? {}).filter(([, p]) => asSchema(p)?.[skip] !== true)
  // Required properties first, so a cap on the count never drops one.
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  properties.sort(([a], [b]) => Number(required.has(b)) - Number(required.has(a)))
  for (const [name, property] of properties.slice(0, MAX_PROPERTIES)) {
    const value = next(property)
    if (value !== undefined) result[name] = value
  }
  const extra = asSchema(schema.additionalProperties)
  if (properties.length === 0 && extra) {
    const value = next(extra)
    if (value !== undefined) result.key = value
  }
  return result
}

function mergeAll(parts: unknown[], schema: Schema, next: (child: unknown) => unknown): unknown {
  const objects = parts.filter((p): p is Json => asSchema(p) !== undefined)
  if (objects.length === 0) return parts.find((p) => p !== undefined)
  const own = schema.properties ? asSchema(next({ ...schema, allOf: undefined })) : undefined
  return Object.assign({}, ...objects, own)
}
