/**
 * Request validation: Fastify's own Ajv compiler, set up twice. A query string, path parameters
 * and headers arrive as text, so their numbers and booleans are converted (Ajv's coerceTypes, as
 * Fastify does by default). A JSON body has types of its own, and a wrong one is refused, never
 * converted: `requireKey: 0` or `[false]` is not false, `restrictNewLibraries: 1` is not true, and
 * an email of `["ops@example.com"]` is not a string.
 *
 * Both keep a property `additionalProperties: false` calls unknown and refuse it: Fastify's default
 * (removeAdditional) would drop it silently, so a misspelt key would be ignored.
 *
 * Compiling a schema is most of what building the app costs (about half of buildApp's time): a
 * schema is compiled once per process and kind, however many routes or apps use it. The routes
 * repeat a few schemas often (`:owner/:name`, `:team`, `:id`): a server compiles 39 schemas, not 68
 * (onprem), and 52, not 109, in the cloud. A compiled validator holds no state between calls.
 */
import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler'

type Validate = ReturnType<ReturnType<ValidatorFactory>>

/** Every validator this process compiled, by kind (body or text), external schemas and schema. */
const compiled = new Map<string, Validate>()

/** Lectern sets no `ajv` option of Fastify's, so this factory's own options are the whole configuration. */
export const buildValidator: ValidatorFactory = (externalSchemas) => {
  const forText = AjvCompiler()(externalSchemas, { customOptions: { removeAdditional: false } })
  const forBodies = AjvCompiler()(externalSchemas, { customOptions: { removeAdditional: false, coerceTypes: false } })
  const external = JSON.stringify(externalSchemas ?? {})
  return (route) => {
    const body = route.httpPart === 'body'
    const key = `${body ? 'body' : 'text'}\n${external}\n${JSON.stringify(route.schema)}`
    let validate = compiled.get(key)
    if (!validate) compiled.set(key, (validate = body ? forBodies(route) : forText(route)))
    return validate
  }
}
