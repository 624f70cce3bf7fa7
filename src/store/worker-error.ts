/**
 * What a worker thread (the database snapshot, the database check) threw, as an Error: a
 * SqliteError crosses the thread boundary as a plain object, often `{code}` alone (SQLITE_FULL).
 */
export function asError(thrown: unknown): Error {
  if (thrown instanceof Error) return thrown
  const { message, code } = (thrown ?? {}) as { message?: unknown; code?: unknown }
  const text = typeof message === 'string' ? message : typeof code === 'string' ? code : String(thrown)
  return Object.assign(new Error(text), typeof code === 'string' ? { code } : {})
}
