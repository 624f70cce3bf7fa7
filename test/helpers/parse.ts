/**
 * The parse thread of tests that build a job's services or a reader's context by hand: the same
 * thread, with the same default budget, as a server's jobs use (it runs the compiled dist/).
 */
import { ParseThread } from '../../src/jobs/parse-thread.js'
import type { Parse } from '../../src/parse/types.js'

export const testParser = new ParseThread({ budgetMs: 20_000 })

/** The Parse a reader's context gets, its tasks ended by `signal`. */
export const testParse = (signal: AbortSignal = new AbortController().signal): Parse => testParser.forJob(signal)
