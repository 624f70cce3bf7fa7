/**
 * Array helpers for input-sized lists. `out.push(...items)` and `Math.min(...values)` pass every
 * item as an argument, and past about 100,000 of them (a document of that many lines) the call
 * itself overflows the stack; these loop instead.
 */

/** Appends `items` to `out` in order; returns `out`. */
export function append<T>(out: T[], items: readonly T[]): T[] {
  for (const item of items) out.push(item)
  return out
}

/** The smallest of `values`, or `empty` when there are none. */
export function minOf(values: readonly number[], empty: number): number {
  let min = Infinity
  for (const value of values) if (value < min) min = value
  return values.length === 0 ? empty : min
}

/** The largest of `values`, or `empty` when there are none. */
export function maxOf(values: readonly number[], empty: number): number {
  let max = -Infinity
  for (const value of values) if (value > max) max = value
  return values.length === 0 ? empty : max
}
