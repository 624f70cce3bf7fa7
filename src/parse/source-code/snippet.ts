/** The snippet shape every source-code extractor produces, so all languages read alike. */
import type { CodeAlternative, ParsedCodeSnippet } from '../types.js'
import { minOf } from '../../text/arrays.js'

export interface ApiSymbol {
  /** `function createServer(options)`, `class Router`, `method Router.get(path, handler)`. */
  title: string
  /** Qualified name (`Router.get`); lower-cased into the anchor. */
  name: string
  description: string
  signature: string
  language: string
  /** Usage examples from the doc comment, each shown as another code alternative. */
  examples?: CodeAlternative[]
}

/** Turns one API symbol of the file at `path` into a code snippet. */
export function symbolSnippet(path: string, symbol: ApiSymbol): ParsedCodeSnippet {
  return {
    kind: 'code',
    title: symbol.title,
    description: symbol.description,
    breadcrumb: breadcrumbOf(path),
    pageTitle: path,
    anchor: symbol.name.toLowerCase(),
    codeList: [{ language: symbol.language, code: symbol.signature }, ...(symbol.examples ?? [])],
  }
}

/** `src/http/server.ts` -> `src > http > server`: the module path reads as a heading trail. */
function breadcrumbOf(path: string): string {
  const withoutExt = path.replace(/(\.d)?\.[^./]+$/, '')
  return withoutExt.split('/').join(' > ')
}

/** Lines of a comment body with the indentation they all share removed (like Python's cleandoc). */
export function dedent(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const indents = lines.slice(1).filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length)
  const common = minOf(indents, 0)
  return [lines[0].trim(), ...lines.slice(1).map((l) => l.slice(common).trimEnd())].join('\n').trim()
}
