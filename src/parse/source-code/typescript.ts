/**
 * The exported API of one TypeScript or JavaScript module, read with the compiler's parser alone:
 * no program or type checker, so a file is documented from its own text in milliseconds.
 */
import ts from 'typescript'
import type { CodeAlternative, ParsedCodeSnippet } from '../types.js'
import { dedent, symbolSnippet, type ApiSymbol } from './snippet.js'

interface DocComment {
  description: string
  examples: CodeAlternative[]
  internal: boolean
}

type FunctionLike = ts.FunctionDeclaration | ts.MethodDeclaration | ts.ArrowFunction | ts.FunctionExpression

/** Snippets of the file's exported symbols; throws when the file does not parse. */
export function typescriptSnippets(path: string, text: string): ParsedCodeSnippet[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, scriptKind(path))
  // `parseDiagnostics` is internal but long-stable; a file with syntax errors gives garbled
  // signatures, so it is refused rather than half-documented.
  const errors = (file as unknown as { parseDiagnostics?: readonly ts.Diagnostic[] }).parseDiagnostics ?? []
  if (errors.length > 0) {
    throw new Error(`syntax error: ${ts.flattenDiagnosticMessageText(errors[0].messageText, ' ')}`)
  }
  const language = /\.[mc]?tsx?$/.test(path) ? 'typescript' : 'javascript'
  const exported = locallyExportedNames(file)
  const symbols: ApiSymbol[] = []
  file.statements.forEach((statement, i) => {
    if (isExported(statement, exported) && !isOverloadImplementation(statement, file.statements[i - 1])) {
      symbols.push(...statementSymbols(file, statement, language))
    }
  })
  return mergeOverloads(symbols).map((symbol) => symbolSnippet(path, symbol))
}

function scriptKind(path: string): ts.ScriptKind {
  if (path.endsWith('.tsx')) return ts.ScriptKind.TSX
  if (path.endsWith('.jsx')) return ts.ScriptKind.JSX
  return /\.[mc]?js$/.test(path) ? ts.ScriptKind.JS : ts.ScriptKind.TS
}

/** Names exported by `export { a, b as c }` or `export default a` rather than at the declaration. */
function locallyExportedNames(file: ts.SourceFile): Set<string> {
  const names = new Set<string>()
  for (const statement of file.statements) {
    if (ts.isExportAssignment(statement) && ts.isIdentifier(statement.expression)) names.add(statement.expression.text)
    if (ts.isExportDeclaration(statement) && !statement.moduleSpecifier && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) names.add((element.propertyName ?? element.name).text)
    }
  }
  return names
}

function isExported(statement: ts.Statement, exported: Set<string>): boolean {
  if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return true
  if (ts.isVariableStatement(statement)) {
    return statement.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && exported.has(d.name.text))
  }
  const name = (statement as { name?: ts.Node }).name
  return name !== undefined && ts.isIdentifier(name) && exported.has(name.text)
}

/** Callers only ever see the overloads, so the implementation after them is left out. */
function isOverloadImplementation(statement: ts.Statement, previous: ts.Statement | undefined): boolean {
  return (
    ts.isFunctionDeclaration(statement) && statement.body !== undefined &&
    previous !== undefined && ts.isFunctionDeclaration(previous) && previous.body === undefined &&
    previous.name?.text === statement.name?.text
  )
}

function statementSymbols(file: ts.SourceFile, statement: ts.Statement, language: string): ApiSymbol[] {
  const doc = docComment(statement, language)
  if (doc.internal) return []
  const base = { language, description: doc.description, examples: doc.examples }
  if (ts.isFunctionDeclaration(statement)) {
    const name = statement.name?.text ?? 'default'
    return [{ ...base, name, title: `function ${name}(${parameterNames(statement)})`, signature: signatureOf(file, statement, statement.body) }]
  }
  if (ts.isClassDeclaration(statement)) return classSymbols(file, statement, base)
  if (ts.isInterfaceDeclaration(statement)) return [declared('interface', statement.name.text)]
  if (ts.isTypeAliasDeclaration(statement)) return [declared('type', statement.name.text)]
  if (ts.isEnumDeclaration(statement)) return [declared('enum', statement.name.text)]
  if (ts.isVariableStatement(statement)) return functionConsts(file, statement, base)
  return []

  function declared(keyword: string, name: string): ApiSymbol {
    return { ...base, name, title: `${keyword} ${name}`, signature: file.text.slice(statement.getStart(file), statement.end).trim() }
  }
}

/** `export const createServer = (options) => ...`: consts holding functions are functions to a reader. */
function functionConsts(file: ts.SourceFile, statement: ts.VariableStatement, base: Omit<ApiSymbol, 'name' | 'title' | 'signature'>): ApiSymbol[] {
  const symbols: ApiSymbol[] = []
  for (const declaration of statement.declarationList.declarations) {
    const init = declaration.initializer
    if (!ts.isIdentifier(declaration.name) || !init || !(ts.isArrowFunction(init) || ts.isFunctionExpression(init))) continue
    const name = declaration.name.text
    // A single declaration keeps its `export const`; one of a list is shown on its own.
    const start = statement.declarationList.declarations.length === 1 ? statement.getStart(file) : declaration.getStart(file)
    const head = file.text.slice(start, init.body.getStart(file)).trimEnd()
    symbols.push({ ...base, name, title: `function ${name}(${parameterNames(init)})`, signature: `${head} …` })
  }
  return symbols
}

/** The class with its public members' signatures, then one snippet per public method. */
function classSymbols(file: ts.SourceFile, node: ts.ClassDeclaration, base: Omit<ApiSymbol, 'name' | 'title' | 'signature'>): ApiSymbol[] {
  const className = node.name?.text ?? 'default'
  const members = node.members.filter(isPublicMember)
  const header = file.text.slice(node.getStart(file), node.members.pos).replace(/\{\s*$/, '').trimEnd()
  const body = members.map((m) => `  ${memberSignature(file, m).replace(/\n/g, '\n  ')}`)
  const symbols: ApiSymbol[] = [
    { ...base, name: className, title: `class ${className}`, signature: `${header} {\n${body.join('\n')}\n}` },
  ]
  for (const member of members) {
    if (!ts.isMethodDeclaration(member) || !member.body) continue
    const doc = docComment(member, base.language)
    if (doc.internal) continue
    const name = `${className}.${member.name.getText(file)}`
    symbols.push({
      name,
      title: `method ${name}(${parameterNames(member)})`,
      description: doc.description,
      signature: signatureOf(file, member, member.body),
      language: base.language,
      examples: doc.examples,
    })
  }
  return symbols
}

function isPublicMember(member: ts.ClassElement): boolean {
  if (ts.isClassStaticBlockDeclaration(member) || ts.isSemicolonClassElement(member) || ts.isIndexSignatureDeclaration(member)) return false
  if (member.name && (ts.isPrivateIdentifier(member.name) || member.name.getText().startsWith('_'))) return false
  const hidden = [ts.SyntaxKind.PrivateKeyword, ts.SyntaxKind.ProtectedKeyword]
  return !(ts.canHaveModifiers(member) && ts.getModifiers(member)?.some((m) => hidden.includes(m.kind)))
}

/** A member as a `.d.ts` would show it: no body, no initializer. */
function memberSignature(file: ts.SourceFile, member: ts.ClassElement): string {
  if (ts.isPropertyDeclaration(member) && member.initializer) {
    return file.text.slice(member.getStart(file), member.initializer.pos).replace(/\s*=\s*$/, '').trim()
  }
  const body = (member as { body?: ts.Node }).body
  return signatureOf(file, member, body)
}

/** The declaration's text up to its body (comments excluded), or all of it when there is none. */
function signatureOf(file: ts.SourceFile, node: ts.Node, body: ts.Node | undefined): string {
  return file.text.slice(node.getStart(file), body ? body.getStart(file) : node.end).trim().replace(/;$/, '')
}

function parameterNames(fn: FunctionLike): string {
  return fn.parameters.map((p) => `${p.dotDotDotToken ? '...' : ''}${p.name.getText().replace(/\s+/g, ' ')}`).join(', ')
}

/** Overloads come as several declarations of one name: one snippet shows every signature. */
function mergeOverloads(symbols: ApiSymbol[]): ApiSymbol[] {
  const merged: ApiSymbol[] = []
  for (const symbol of symbols) {
    const previous = merged[merged.length - 1]
    if (previous?.name === symbol.name && previous.title.startsWith('function ') && symbol.title.startsWith('function ')) {
      previous.signature = `${previous.signature}\n${symbol.signature}`
      previous.description ||= symbol.description
      if (previous.examples?.length === 0) previous.examples = symbol.examples
    } else {
      merged.push({ ...symbol })
    }
  }
  return merged
}

/** The closest JSDoc block: its summary and tags as prose, and its `@example` blocks as code. */
function docComment(node: ts.Node, language: string): DocComment {
  const jsDoc = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc).pop()
  if (!jsDoc) return { description: '', examples: [], internal: false }
  const lines = [ts.getTextOfJSDocComment(jsDoc.comment)?.trim() ?? '']
  const examples: CodeAlternative[] = []
  let internal = false
  for (const tag of jsDoc.tags ?? []) {
    const text = (ts.getTextOfJSDocComment(tag.comment) ?? '').replace(/^\s*-\s*/, '').trim()
    const kind = tag.tagName.text
    if (ts.isJSDocParameterTag(tag)) lines.push(`Parameter \`${tag.name.getText()}\`: ${text}`)
    else if (kind === 'returns' || kind === 'return') lines.push(`Returns ${text}`)
    else if (kind === 'throws') lines.push(`Throws ${text}`)
    else if (kind === 'deprecated') lines.push(`Deprecated${text ? `: ${text}` : '.'}`)
    else if (kind === 'example' && text) examples.push(exampleCode(text, language))
    else if (kind === 'internal' || kind === 'private') internal = true
  }
  return { description: lines.filter((l) => l !== '').join('\n'), examples, internal }
}

/** An `@example` body, unwrapped from its fence when it has one (the fence names the language). */
function exampleCode(text: string, language: string): CodeAlternative {
  const fenced = /^```([\w-]*)[^\n]*\n([\s\S]*?)\n?```\s*$/.exec(text.trim())
  if (!fenced) return { language, code: dedent(text) }
  return { language: normaliseLanguage(fenced[1]) ?? language, code: dedent(fenced[2]) }
}

function normaliseLanguage(tag: string): string | undefined {
  const lower = tag.toLowerCase()
  if (lower === '') return undefined
  if (['ts', 'tsx', 'typescript'].includes(lower)) return 'typescript'
  if (['js', 'jsx', 'javascript', 'mjs', 'cjs'].includes(lower)) return 'javascript'
  return lower
}
