/**
 * Secrets a command reads (tokens, webhook secrets): from standard input or an environment
 * variable, never from a flag's value, which `ps` and shell history would show.
 */
import { text } from 'node:stream/consumers'
import { LecternError } from '../src/errors.js'

export async function secretFromStdin(): Promise<string> {
  return (await text(process.stdin)).trim()
}

export function secretFromEnv(name: string): string {
  const value = process.env[name]
  if (!value) throw new LecternError('validation_error', `The environment variable ${name} is not set.`)
  return value
}
