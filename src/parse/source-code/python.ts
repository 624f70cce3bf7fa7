/**
 * The public API of one Python module: module-level functions and classes (and the classes'
 * public methods) whose names do not start with `_`, documented by their docstrings.
 */
import type { ParsedCodeSnippet } from '../types.js'
import { dedent, symbolSnippet, type ApiSymbol } from './snippet.js'
import { withSyntaxTree, type Node } from './tree-sitter.js'

const LANGUAGE = 'python'

/** Snippets of the module's public functions, classes and methods; throws when it does not parse. */
export async function pythonSnippets(path: string, text: string): Promise<ParsedCodeSnippet[]> {
  const symbols = await withSyntaxTree('python', text, (root) => root.namedChildren.flatMap((node) => (node ? topLevelSymbols(text, node) : [])))
  return symbols.map((symbol) => symbolSnippet(path, symbol))
}

function topLevelSymbols(text: string, node: Node): ApiSymbol[] {
  const definition = unwrapDecorated(node)
  if (!definition || !isPublic(definition)) return []
  if (definition.type === 'function_definition') return [functionSymbol(text, node, definition)]
  if (definition.type === 'class_definition') return classSymbols(text, node, definition)
  return []
}

/** The `def` or `class` inside a `decorated_definition`, or the node itself. */
function unwrapDecorated(node: Node): Node | null {
  return node.type === 'decorated_definition' ? node.childForFieldName('definition') : node
}

function isPublic(definition: Node): boolean {
  const name = definition.childForFieldName('name')?.text ?? '_'
  return !name.startsWith('_')
}

/** `outer` is the statement as written (decorators included), `definition` the def inside it. */
function functionSymbol(text: string, outer: Node, definition: Node, className?: string): ApiSymbol {
  const name = definition.childForFieldName('name')?.text ?? ''
  const qualified = className ? `${className}.${name}` : name
  return {
    name: qualified,
    title: `${className ? 'method' : 'function'} ${qualified}(${parameterNames(definition, className !== undefined)})`,
    description: docstring(definition),
    signature: header(text, outer, definition),
    language: LANGUAGE,
  }
}

/** The class with its public methods' `def` lines, then one snippet per public method. */
function classSymbols(text: string, outer: Node, definition: Node): ApiSymbol[] {
  const name = definition.childForFieldName('name')?.text ?? ''
  const methods = bodyStatements(definition).flatMap((node) => {
    const method = unwrapDecorated(node)
    if (method?.type !== 'function_definition') return []
    const methodName = method.childForFieldName('name')?.text ?? '_'
    // `__init__` belongs in the class outline: it is how the class is called.
    return methodName === '__init__' || !methodName.startsWith('_') ? [{ outer: node, method, methodName }] : []
  })
  const outline = methods.map(({ outer: m, method }) => `    ${header(text, m, method).replace(/\n/g, '\n    ')} ...`)
  const classSymbol: ApiSymbol = {
    name,
    title: `class ${name}`,
    description: docstring(definition),
    signature: [header(text, outer, definition), ...outline].join('\n'),
    language: LANGUAGE,
  }
  const methodSymbols = methods.filter((m) => m.methodName !== '__init__').map((m) => functionSymbol(text, m.outer, m.method, name))
  return [classSymbol, ...methodSymbols]
}

/** Decorators and the `def`/`class` line(s), up to and including the colon before the body. */
function header(text: string, outer: Node, definition: Node): string {
  const body = definition.childForFieldName('body')
  return dedent(text.slice(outer.startIndex, body ? body.startIndex : definition.endIndex)).trimEnd()
}

function bodyStatements(definition: Node): Node[] {
  return (definition.childForFieldName('body')?.namedChildren ?? []).filter((n): n is Node => n !== null)
}

/** Parameter names as a caller writes them: no annotations or defaults, no `self`/`cls`. */
function parameterNames(definition: Node, isMethod: boolean): string {
  const params = definition.childForFieldName('parameters')?.namedChildren ?? []
  const names = params
    .filter((p): p is Node => p !== null && p.type !== 'comment')
    .map((p) => p.text.split(/[:=]/)[0].trim())
    .filter((n) => n !== '*' && n !== '/')
  return (isMethod && ['self', 'cls'].includes(names[0]) ? names.slice(1) : names).join(', ')
}

/** The first statement of the body when it is a string literal, dedented like `inspect.cleandoc`. */
function docstring(definition: Node): string {
  const first = bodyStatements(definition)[0]
  const literal = first?.type === 'expression_statement' ? first.namedChildren[0] : null
  if (literal?.type !== 'string') return ''
  const inner = literal.text.replace(/^[rRuU]*("""|'''|"|')([\s\S]*)\1$/, '$2')
  return dedent(inner)
}
