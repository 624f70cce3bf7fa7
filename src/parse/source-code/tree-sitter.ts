/**
 * Tree-sitter parsers from the prebuilt grammars of `tree-sitter-wasms`. The runtime is
 * initialised once and each grammar loaded once per process, on first use.
 */
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Language, Parser, type Node } from 'web-tree-sitter'

export type { Node }

let runtime: Promise<void> | undefined
const languages = new Map<string, Promise<Language>>()

function grammarPath(name: string): string {
  const pkg = createRequire(import.meta.url).resolve('tree-sitter-wasms/package.json')
  return join(dirname(pkg), 'out', `tree-sitter-${name}.wasm`)
}

async function language(name: string): Promise<Language> {
  runtime ??= Parser.init()
  await runtime
  let loaded = languages.get(name)
  if (!loaded) {
    loaded = Language.load(grammarPath(name))
    languages.set(name, loaded)
  }
  return loaded
}

/**
 * Runs `read` on the syntax tree of `text`, then frees the tree (it lives in WASM memory, which no
 * garbage collector reclaims). Throws on syntax errors, which would make the signatures garbage.
 */
export async function withSyntaxTree<T>(grammar: string, text: string, read: (root: Node) => T): Promise<T> {
  const grammarLanguage = await language(grammar)
  const parser = new Parser()
  try {
    parser.setLanguage(grammarLanguage)
    const tree = parser.parse(text)
    if (!tree) throw new Error('parse cancelled')
    try {
      if (tree.rootNode.hasError) throw new Error('syntax error')
      return read(tree.rootNode)
    } finally {
      tree.delete()
    }
  } finally {
    parser.delete()
  }
}
