/**
 * A JSON payload file (`{"libraries": [...], "force": false}`, up to 100 MB) or a bundle's
 * library entry, read one snippet at a time. Parsed whole, a payload is its text (twice its
 * bytes once it holds one character outside Latin-1), its parse tree and every library's
 * conversion alive at once: the import of one library of 86 MB took a server from 170 to 764 MB
 * resident (bench/RESULTS.md). Here the scanner (json-scanner.ts) walks the payload's object,
 * its `libraries` array, each library's object and its `codeSnippets` and `infoSnippets` arrays,
 * and hands every other value over parsed on its own: memory holds a window of the file and one
 * snippet.
 */
import { FileWindow } from './file-window.js'
import { JsonScanner, MAX_VALUE_BYTES, OPEN_ARRAY, OPEN_OBJECT } from './json-scanner.js'
import { noLibraries, notAPayload, SNIPPET_LISTS, type SnippetList } from './payload.js'

/** What reading one element of `libraries` hands over, in the order the bytes hold it. */
export interface LibraryVisitor {
  /** The element is not an object: all of it, parsed. */
  notAnObject(value: unknown): void
  /** A field other than an array of snippets, parsed. */
  field(key: string, value: unknown): void
  /** `codeSnippets` or `infoSnippets` is an array; its elements follow. */
  list(name: SnippetList): void
  snippet(list: SnippetList, index: number, raw: unknown): void
  /** The element has been read. */
  end(): void
}

/** Reads the library value at the scanner into `visitor`; `where` names it in refusals. */
async function readLibrary(scanner: JsonScanner, where: string, visitor: LibraryVisitor): Promise<void> {
  if (scanner.peek() !== OPEN_OBJECT) {
    visitor.notAnObject(scanner.value(where))
  } else {
    await scanner.object(async (key) => {
      if (SNIPPET_LISTS.has(key) && scanner.peek() === OPEN_ARRAY) {
        const list = key as SnippetList
        visitor.list(list)
        await scanner.array((i) => visitor.snippet(list, i, scanner.value(`${where}.${list}[${i}]`)))
      } else {
        visitor.field(key, scanner.value(`${where}.${key}`))
      }
    })
  }
  visitor.end()
}

/**
 * Reads the payload file at `file`, each element of its `libraries` into the visitor
 * `onLibrary` returns for it, and returns the payload's own `force`. Throws `validation_error`
 * naming `what` for bytes that are not a payload of JSON in UTF-8, possibly after some
 * libraries were read.
 */
export async function readPayloadFile(file: string, what: string, onLibrary: () => LibraryVisitor): Promise<{ force: boolean }> {
  const bytes = new FileWindow(file)
  try {
    const scanner = new JsonScanner(bytes, what)
    // Anything but an object is not a payload: refused as not JSON or as not one.
    if (scanner.peek() !== OPEN_OBJECT) {
      const value = scanner.skip()
      scanner.end()
      if (value[1] - value[0] <= MAX_VALUE_BYTES) scanner.parse(value, 'the top level')
      throw notAPayload()
    }
    let libraries: number | undefined
    let force = false
    await scanner.object(async (key) => {
      if (key === 'libraries' && scanner.peek() === OPEN_ARRAY) libraries = await scanner.array((i) => readLibrary(scanner, `libraries[${i}]`, onLibrary()))
      else if (key === 'force') force = scanner.value(key) === true
      else scanner.value(key)
    })
    scanner.end()
    if (libraries === undefined) throw notAPayload()
    if (libraries === 0) throw noLibraries()
    return { force }
  } finally {
    bytes.close()
  }
}

/** Reads a bundle's library entry, inflated to `file`, into `visitor`; refusals name the entry `what`. */
export async function readLibraryFile(file: string, what: string, visitor: LibraryVisitor): Promise<void> {
  const bytes = new FileWindow(file)
  try {
    const scanner = new JsonScanner(bytes, what)
    await readLibrary(scanner, 'the top level', visitor)
    scanner.end()
  } finally {
    bytes.close()
  }
}
