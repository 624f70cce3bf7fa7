/**
 * The dashboard's only way to the server: JSON over fetch, same origin, the session cookie sent
 * by the browser. A refusal becomes an ApiError carrying the API's own code and message, which
 * the pages show as they are.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The error object's other fields (`redirectUrl` of a renamed library). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message)
  }
}

/** Fired when the server says the session is gone (it expired, or signed out elsewhere): the app shows sign-in. */
export const SESSION_ENDED = 'lectern:session-ended'

export interface Session {
  user: { email: string; role: 'admin' | 'member' } | null
  setupRequired: boolean
  mode: 'onprem' | 'cloud'
  version: string
  /** On-premise single sign-on, when configured: the button's label, and whether passwords still sign in. */
  sso?: { label: string; passwordSignIn: boolean }
}

type Body = Record<string, unknown> | FormData | undefined

/** Names the dashboard as the client of the questions it asks, so Usage tells them from the tools'. */
const CLIENT_HEADER = { 'x-context7-source': 'dashboard' }

async function request(method: string, path: string, body?: Body): Promise<Response> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json', ...CLIENT_HEADER } }
  if (body instanceof FormData) init.body = body
  else if (body !== undefined) {
    init.body = JSON.stringify(body)
    init.headers = { ...init.headers, 'content-type': 'application/json' }
  }
  let response: Response
  try {
    response = await fetch(path, init)
  } catch {
    throw new ApiError(0, 'unreachable', 'The server cannot be reached. It may be restarting; this page retries when you try again.')
  }
  if (response.ok) return response
  const text = await response.text()
  try {
    const { error, message, ...details } = JSON.parse(text) as { error?: string; message?: string }
    if (response.status === 401 && error === 'not_authenticated' && !path.startsWith('/api/auth/') && path !== '/api/setup') {
      window.dispatchEvent(new Event(SESSION_ENDED))
    }
    throw new ApiError(response.status, error ?? 'internal_error', message ?? text, details)
  } catch (err) {
    if (err instanceof ApiError) throw err
    throw new ApiError(response.status, 'internal_error', text || response.statusText)
  }
}

export async function api<T>(method: string, path: string, body?: Body): Promise<T> {
  const response = await request(method, path, body)
  return (response.status === 204 ? undefined : await response.json()) as T
}

/** A download (a bundle), its refusal an ApiError like any other answer's. */
export async function apiBlob(method: string, path: string, body?: Body): Promise<Blob> {
  return (await request(method, path, body)).blob()
}

/** An answer as text (the `txt` format AI tools get). */
export async function apiText(path: string): Promise<string> {
  return (await request('GET', path)).text()
}

export const query = (params: Record<string, string | number | undefined>): string => {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value))
  const text = search.toString()
  return text ? `?${text}` : ''
}

/** The path of a library's dashboard API resource: IDs are `/owner/name`. */
export const libraryPath = (id: string): string => `/api/libraries${id.split('/').map(encodeURIComponent).join('/')}`
