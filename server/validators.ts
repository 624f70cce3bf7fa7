/**
 * Request validation: Fastify's own Ajv compiler, set up twice. A query string, path parameters
 * and headers arrive as text, so their numbers and booleans are converted (Ajv's coerceTypes, as
 * Fastify does by default). A JSON body has types of its own, and a wrong one is refused, never
 * converted: `requireKey: 0` or `[false]` is not false, `restrictNewLibraries: 1` is not true, and
 * an email of `["ops@example.com"]` is not a string.
 *
 * Both keep a property `additionalProperties: false` calls unknown and refuse it: Fastify's default
 * (removeAdditional) would drop it silently, so a misspelt key would be ignored.
 */
import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler'

/** Lectern sets no `ajv` option of Fastify's, so this factory's own options are the whole configuration. */
export const buildValidator: ValidatorFactory = (externalSchemas) => {
  const forText = AjvCompiler()(externalSchemas, { customOptions: { removeAdditional: false } })
  const forBodies = AjvCompiler()(externalSchemas, { customOptions: { removeAdditional: false, coerceTypes: false } })
  return (route) => (route.httpPart === 'body' ? forBodies(route) : forText(route))
}
