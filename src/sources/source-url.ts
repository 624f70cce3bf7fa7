/**
 * The URL of a web source (an OpenAPI spec, an llms.txt, a website), checked where it comes in:
 * a submission, and every request of the HTTP client. It must parse, be http or https, and carry
 * no credentials: a `user:password@` would be stored with the library, shown in its source and
 * written to logs, so it is refused without echoing the URL.
 */
import { LecternError } from '../errors.js'

/** The parsed URL; `what` names it in the refusal ("The OpenAPI URL"). */
export function parseSourceUrl(url: string, what: string): URL {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new LecternError('validation_error', `${what} is not a valid URL.`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new LecternError('validation_error', `${what} must be http or https, not ${parsed.protocol}`)
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new LecternError('validation_error', `${what} must not contain credentials (user:password@); Lectern would store them with the library.`)
  }
  return parsed
}
