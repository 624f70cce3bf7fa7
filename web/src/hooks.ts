import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApiError } from './api'

export interface Loaded<T> {
  data: T | undefined
  error: ApiError | undefined
  loading: boolean
  reload: () => void
}

/**
 * Loads with `load` whenever `deps` change, and again every `pollMs` while the page is shown
 * (the queue and a library being processed update live); a failed load keeps the last data.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], pollMs?: number): Loaded<T> {
  const [data, setData] = useState<T>()
  const [error, setError] = useState<ApiError>()
  const [loading, setLoading] = useState(true)
  const [tick, setTick] = useState(0)
  const reload = useCallback(() => setTick((n) => n + 1), [])
  const latest = useRef(0)
  useEffect(() => {
    const call = ++latest.current
    setLoading(true)
    load()
      .then((value) => {
        if (call !== latest.current) return
        setData(value)
        setError(undefined)
      })
      .catch((err: unknown) => {
        if (call === latest.current) setError(err instanceof ApiError ? err : new ApiError(0, 'internal_error', String(err)))
      })
      .finally(() => {
        if (call === latest.current) setLoading(false)
      })
  }, [...deps, tick])
  useEffect(() => {
    if (!pollMs) return
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') reload()
    }, pollMs)
    return () => clearInterval(timer)
  }, [pollMs, reload])
  return { data, error, loading, reload }
}

/** Runs an action of a form or button: busy while it runs, its refusal kept to show. */
export function useAction<A extends unknown[], R>(action: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<ApiError>()
  const run = async (...args: A): Promise<R | undefined> => {
    setBusy(true)
    setError(undefined)
    try {
      return await action(...args)
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, 'internal_error', String(err)))
      return undefined
    } finally {
      setBusy(false)
    }
  }
  return { run, busy, error, clearError: () => setError(undefined) }
}
