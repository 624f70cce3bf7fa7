/**
 * A language for code whose source names none (an rST `::` block outside a Sphinx project, an
 * indented Markdown block): a few unambiguous signals, else `text`. A wrong guess costs more
 * than `text` (it misleads the reader and the ranking), so every rule needs a strong signal.
 */

const RULES: Array<{ language: string; test: (code: string, lines: string[]) => boolean }> = [
  { language: 'python', test: (code) => /^\s*>>> /m.test(code) },
  { language: 'bash', test: (_code, lines) => lines.every((l) => /^\s*(\$ |# |sudo |pip3? |npm |npx |yarn |pnpm |git |curl |cd |export |python3? -m |docker |brew |apt(-get)? |uv )/.test(l) || l.trim() === '') },
  { language: 'json', test: (code) => /^\s*[[{]/.test(code) && /[\]}]\s*$/.test(code) && isJson(code) },
  { language: 'html', test: (code) => /^\s*<(!doctype|html|div|span|p|template|body|head|section|a|ul|table|form|input|button|script|style)\b/i.test(code) && /<\/\w+>\s*$/.test(code) },
  { language: 'python', test: (code) => /^\s*(def |class \w+[(:]|import \w|from [\w.]+ import |@\w+|async def |if __name__)/m.test(code) && !/[;{]\s*$/m.test(code) },
  { language: 'javascript', test: (code) => /^\s*(const|let|var|function|import|export)\b.*[=({]/m.test(code) && /[;)}]\s*$/m.test(code) },
  { language: 'sql', test: (code) => /^\s*(SELECT|INSERT INTO|UPDATE|DELETE FROM|CREATE TABLE|ALTER TABLE)\b/.test(code) },
  { language: 'yaml', test: (_code, lines) => lines.filter((l) => l.trim() !== '').length > 1 && lines.every((l) => l.trim() === '' || /^\s*(- |[\w.-]+:(\s|$)|#)/.test(l)) },
]

function isJson(code: string): boolean {
  try {
    JSON.parse(code)
    return true
  } catch {
    return false
  }
}

export function guessLanguage(code: string): string {
  const lines = code.split('\n')
  return RULES.find((rule) => rule.test(code, lines))?.language ?? 'text'
}
