/**
 * Which snippets of a loaded set come from the same section of a page: the same source link (page
 * and anchor), which ingest gives every snippet cut from one section, its prose and its code
 * alike. An answer uses it to bring a section's code beside the explanation that ranked
 * (src/search/section-code.ts).
 *
 * The engine file holds each snippet's section number (`sectionNumbers`); loading groups the code
 * snippets by section once, so a request reads a section's code as one slice of an array.
 */

/**
 * Each row's section number, numbered in the order sections first appear: rows with the same
 * `source` share one. Written to the engine file beside the rows' texts.
 */
export function sectionNumbers(rows: ReadonlyArray<{ source: string }>): Uint32Array {
  const numbers = new Map<string, number>()
  return Uint32Array.from(rows, (row) => {
    let section = numbers.get(row.source)
    if (section === undefined) {
      section = numbers.size
      numbers.set(row.source, section)
    }
    return section
  })
}

export class SetSections {
  /** Code snippets grouped by section: section s holds `codeDocs[starts[s]..starts[s + 1])`, in document order. */
  private readonly starts: Uint32Array
  private readonly codeDocs: Uint32Array

  /** `sectionOf[doc]`: each snippet's section number (sectionNumbers), in document order. */
  constructor(
    private readonly sectionOf: Uint32Array,
    isCode: (doc: number) => boolean,
  ) {
    let sections = 0
    for (const section of sectionOf) {
      // Numbered from 0 in order of appearance, so never past the snippet count: a file saying otherwise is not one we wrote.
      if (section > sections) throw new Error(`section ${section} follows section ${sections - 1}`)
      if (section === sections) sections++
    }
    const counts = new Uint32Array(sections + 1)
    let code = 0
    sectionOf.forEach((section, doc) => {
      if (!isCode(doc)) return
      counts[section + 1]++
      code++
    })
    for (let s = 1; s <= sections; s++) counts[s] += counts[s - 1]
    this.starts = counts
    this.codeDocs = new Uint32Array(code)
    const filled = counts.slice(0, sections)
    sectionOf.forEach((section, doc) => {
      if (isCode(doc)) this.codeDocs[filled[section]++] = doc
    })
  }

  /** Bytes held beside the engine file's (whose section numbers are counted with the file). */
  get ownBytes(): number {
    return this.starts.byteLength + this.codeDocs.byteLength
  }

  /** The code snippets of `doc`'s section, in the order the page shows them; `doc` itself among them when it is code. */
  codeOfSection(doc: number): Uint32Array {
    const section = this.sectionOf[doc]
    return this.codeDocs.subarray(this.starts[section], this.starts[section + 1])
  }
}
