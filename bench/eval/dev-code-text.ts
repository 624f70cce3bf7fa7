/**
 * The code a docs file shows, for the checker: a question's `codeMustContain` must be found in
 * code, not only in prose. Markdown and MDX: fenced blocks. reStructuredText: literal blocks
 * (after `::` and code directives, indented) and ``inline literals``. Any other file (an example
 * a page includes) is code as a whole.
 */
const FENCE = /^\s*(`{3,}|~{3,})/
const RST_BLOCK_START = /(::\s*$)|^\s*\.\.\s+(code-block|code|sourcecode|tab)::/

function fencedCode(text: string): string {
  const code: string[] = []
  let fence: string | null = null
  for (const line of text.split('\n')) {
    const opener = FENCE.exec(line)
    if (fence === null) {
      if (opener) fence = opener[1]
    } else if (line.trim().startsWith(fence)) fence = null
    else code.push(line)
  }
  return code.join('\n')
}

const indentOf = (line: string) => line.length - line.trimStart().length

function rstCode(text: string): string {
  const code: string[] = []
  let blockIndent: number | null = null
  let inBlock = false
  for (const line of text.split('\n')) {
    if (inBlock) {
      if (line.trim() === '') {
        code.push(line)
        continue
      }
      blockIndent ??= indentOf(line)
      if (blockIndent > 0 && indentOf(line) >= blockIndent) {
        code.push(line)
        continue
      }
      inBlock = false
      blockIndent = null
    }
    if (RST_BLOCK_START.test(line)) {
      inBlock = true
      blockIndent = null
    }
  }
  const inline = [...text.matchAll(/``(.+?)``/g)].map((m) => m[1])
  return [...code, ...inline].join('\n')
}

export function codeText(file: string, text: string): string {
  if (/\.(md|mdx|markdown)$/i.test(file)) return fencedCode(text)
  if (/\.rst$/i.test(file)) return rstCode(text)
  return text
}
