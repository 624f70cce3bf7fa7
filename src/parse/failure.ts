/**
 * A document (or page, source file, spec) that could not be parsed within the parse budget: it
 * took too long, needed too much memory, or its parser threw. The job skips it and says why;
 * the rest of the library is indexed.
 */
export class ParseFailure extends Error {
  override readonly name = 'ParseFailure'

  constructor(
    /** Why, as the end of a sentence: "took over the 20 s parse budget". */
    readonly reason: string,
    /** True when the budget cut it off (time or memory), rather than the parser failing. */
    readonly overBudget: boolean,
  ) {
    super(reason)
  }
}
