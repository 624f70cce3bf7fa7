/** A count with its noun, singular for one: `1 document`, `3 documents`. */
export const counted = (n: number, noun: string, plural = `${noun}s`): string => `${n} ${n === 1 ? noun : plural}`
