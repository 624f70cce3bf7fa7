import type { Root } from 'mdast'
import remarkGfm from 'remark-gfm'
import remarkParse from 'remark-parse'
import { unified } from 'unified'
import type { IncludeOutcome, IncludeReader, ParsedCodeSnippet, ParsedInfoSnippet, ParsedSnippet } from '../../src/parse/types.js'

export function codeSnippets(snippets: ParsedSnippet[]): ParsedCodeSnippet[] {
  return snippets.filter((snippet): snippet is ParsedCodeSnippet => snippet.kind === 'code')
}

export function infoSnippets(snippets: ParsedSnippet[]): ParsedInfoSnippet[] {
  return snippets.filter((snippet): snippet is ParsedInfoSnippet => snippet.kind === 'info')
}

/** Strips the common indentation of a template literal so fixtures can sit indented in tests. */
export function dedent(text: string): string {
  const lines = text.replace(/^\n/, '').split('\n')
  const indents = lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)![0].length)
  const common = Math.min(...indents)
  return lines.map((line) => line.slice(common)).join('\n')
}

/** The tree remark (with GFM) builds for plain markdown, to compare markdown-it's reading against. */
export function remarkTree(body: string): Root {
  return unified().use(remarkParse).use(remarkGfm).parse(body)
}

/** A repository as a map of paths to texts, recording what each include directive came to. */
export function repo(files: Record<string, string>): IncludeReader & { outcomes: IncludeOutcome[]; logs: string[] } {
  const outcomes: IncludeOutcome[] = []
  return {
    outcomes,
    /** What went wrong, one line each, as a job logs it. */
    get logs() {
      return outcomes.filter((o) => o.problem !== undefined).map((o) => `${o.page}:${o.line}: include "${o.reference}" ${o.problem}${o.tried ? ` (tried ${o.tried.join(', ')})` : ''}`)
    },
    readFile: (path) => files[path],
    record: (outcome) => void outcomes.push(outcome),
  }
}
