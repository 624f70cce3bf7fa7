/**
 * The server's refusal of what needs a confirmed address (creating keys and teamspaces, inviting),
 * in the dashboard's words: the API's message is written for API users and names the route that
 * resends the link, where the dashboard has the banner's button.
 */
import { ApiError } from '../api'

export function inPageWords(error: ApiError | undefined, emailVerified: boolean): ApiError | undefined {
  if (error?.code !== 'forbidden' || emailVerified) return error
  return new ApiError(error.status, error.code, 'Confirm your address first: use the link we mailed, or "Send the link again" above.', error.details)
}
