/**
 * The exported API of one Go file: capitalised functions, methods (on exported types) and type
 * declarations, documented by the `//` comments right above them as `go doc` reads them.
 */
import type { ParsedCodeSnippet } from '../types.js'
import { symbolSnippet, type ApiSymbol } from './snippet.js'
import { withSyntaxTree, type Node } from './tree-sitter.js'

const LANGUAGE = 'go'

/** Snippets of the file's exported symbols; throws when the file does not parse. */
export async function goSnippets(path: string, text: string): Promise<ParsedCodeSnippet[]> {
  const symbols = await withSyntaxTree('go', text, (root) => root.namedChildren.flatMap((node) => (node ? declarationSymbols(text, node) : [])))
  return symbols.map((symbol) => symbolSnippet(path, symbol))
}

function declarationSymbols(text: string, node: Node): ApiSymbol[] {
  if (node.type === 'function_declaration') return funcSymbol(text, node, undefined)
  if (node.type === 'method_declaration') {
    const receiver = receiverType(node)
    return receiver && isExported(receiver) ? funcSymbol(text, node, receiver) : []
  }
  if (node.type === 'type_declaration') return typeSymbols(text, node)
  return []
}

const isExported = (name: string) => /^\p{Lu}/u.test(name)

function funcSymbol(text: string, node: Node, receiver: string | undefined): ApiSymbol[] {
  const name = node.childForFieldName('name')?.text ?? ''
  if (!isExported(name)) return []
  const qualified = receiver ? `${receiver}.${name}` : name
  const body = node.childForFieldName('body')
  return [
    {
      name: qualified,
      title: `${receiver ? 'method' : 'func'} ${qualified}(${parameterNames(node.childForFieldName('parameters'))})`,
      description: docComment(node),
      signature: text.slice(node.startIndex, body ? body.startIndex : node.endIndex).trimEnd(),
      language: LANGUAGE,
    },
  ]
}

/** `(s *Server[T])` -> `Server`. */
function receiverType(node: Node): string | undefined {
  const receiver = node.childForFieldName('receiver')?.text ?? ''
  return /([\p{L}_][\p{L}\p{N}_]*)\s*(\[[^\]]*\])?\s*\)$/u.exec(receiver)?.[1]
}

/** One symbol per exported spec; a spec of a `type ( ... )` group is shown on its own. */
function typeSymbols(text: string, declaration: Node): ApiSymbol[] {
  const specs = declaration.namedChildren.filter((n): n is Node => n !== null && (n.type === 'type_spec' || n.type === 'type_alias'))
  const grouped = specs.length > 1 || declaration.text.replace(/^type\s*/, '').startsWith('(')
  return specs.flatMap((spec) => {
    const name = spec.childForFieldName('name')?.text ?? ''
    if (!isExported(name)) return []
    const kind = spec.childForFieldName('type')?.type
    const keyword = kind === 'struct_type' ? 'struct' : kind === 'interface_type' ? 'interface' : 'type'
    return [
      {
        name,
        title: `${keyword} ${name}`,
        description: docComment(grouped ? spec : declaration),
        signature: grouped ? `type ${text.slice(spec.startIndex, spec.endIndex)}` : text.slice(declaration.startIndex, declaration.endIndex),
        language: LANGUAGE,
      },
    ]
  })
}

/** Parameter names as a caller sees them; an unnamed parameter shows its type. */
function parameterNames(list: Node | null): string {
  const names = (list?.namedChildren ?? []).flatMap((p) => {
    if (!p || p.type === 'comment') return []
    const named = p.childrenForFieldName('name').filter((n): n is Node => n !== null)
    const prefix = p.type === 'variadic_parameter_declaration' ? '...' : ''
    return named.length > 0 ? named.map((n) => `${prefix}${n.text}`) : [p.text]
  })
  return names.join(', ')
}

/** The `//` (or `/* *\/`) comment lines directly above the node, with no blank line between. */
function docComment(node: Node): string {
  const lines: string[] = []
  let below = node
  for (let above = node.previousNamedSibling; above?.type === 'comment'; above = above.previousNamedSibling) {
    if (above.endPosition.row < below.startPosition.row - 1) break
    // `//go:generate` and the like are instructions to tools, not documentation.
    if (!above.text.startsWith('//go:')) lines.unshift(commentText(above.text))
    below = above
  }
  return lines.join('\n').trim()
}

function commentText(comment: string): string {
  if (comment.startsWith('//')) return comment.replace(/^\/\/ ?/, '')
  return comment.replace(/^\/\*+\s?/, '').replace(/\s*\*+\/$/, '')
}
