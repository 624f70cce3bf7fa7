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
 * Compiling a schema is most of what building the app costs (about half of buildApp's time, 0.6 s
 * of a server's start): a schema is compiled when a request first needs it, not when its route is
 * registered, and once per process and kind, however many routes or apps use it. Most routes of a
 * process are never called (a CLI's app, a worker that serves only the API), and the routes repeat
 * a few schemas often (`:owner/:name`, `:team`, `:id`). A compiled validator holds no state
 * between calls but the errors of the last one, which Fastify reads right after it.
 */
import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler'

type Validate = ReturnType<ReturnType<ValidatorFactory>>
type Compile = ReturnType<ValidatorFactory>

/** Every validator this process made, by kind (body or text), external schemas and schema; each compiles at its first call. */
const compiled = new Map<string, Validate>()

/** Lectern sets no `ajv` option of Fastify's, so this factory's own options are the whole configuration. */
export const buildValidator: ValidatorFactory = (externalSchemas) => {
  let forText: Compile | undefined
  let forBodies: Compile | undefined
  const external = JSON.stringify(externalSchemas ?? {})
  return (route) => {
    const body = route.httpPart === 'body'
    const key = `${body ? 'body' : 'text'}\n${external}\n${JSON.stringify(route.schema)}`
    let validate = compiled.get(key)
    if (!validate) {
      const compile = body
        ? () => (forBodies ??= AjvCompiler()(externalSchemas, { customOptions: { removeAdditional: false, coerceTypes: false } }))(route)
        : () => (forText ??= AjvCompiler()(externalSchemas, { customOptions: { removeAdditional: false } }))(route)
      compiled.set(key, (validate = compiledOnFirstCall(compile)))
    }
    return validate
  }
}

/** A validator that compiles its schema when first called; Fastify reads `errors` from the function it was given. */
function compiledOnFirstCall(compile: () => Validate): Validate {
  let validate: Validate | undefined
  const lazy = ((data: unknown) => {
    validate ??= compile()
    const valid = validate(data)
    lazy.errors = validate.errors
    return valid
  }) as Validate
  return lazy
}
