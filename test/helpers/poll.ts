/** Waiting on a condition by polling at a short interval: never a fixed sleep. */
const POLL_MS = 50

/** Polls until `check` returns a value, failing with `what` after the timeout. */
export async function pollUntil<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}
