/**
 * How a failed command reads on a terminal and in `--json`: one plain sentence, whatever said it.
 * oclif's parser speaks in lines (a header, a tab-indented detail, "See more help with --help")
 * and its printer wraps without trimming, which starts every continuation line with a space.
 */
import wrapAnsi from 'wrap-ansi'

const HELP_HINT = 'See more help with --help'

/**
 * oclif's parser refusal as one sentence that names the command's help:
 * "Parsing --tokens \n\tExpected an integer but received: abc" becomes
 * "--tokens: Expected an integer but received: abc. See `lectern docs --help`.", and an argument
 * list ("query  Your question.") becomes "query (Your question)".
 */
export function parserMessage(text: string, commandId: string | undefined): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && line !== HELP_HINT)
  const [first = 'The command line is not valid.', ...details] = lines
  const flag = /^Parsing (\S+)$/.exec(first)
  const head = flag ? `${flag[1]}:` : first
  const described = details.map((line) => line.replace(/^(\S+)\s{2,}(.*?)\.?$/, '$1 ($2)'))
  const sentence = [head, described.join('; ')].filter(Boolean).join(' ').replace(/[.:;]?$/, '.')
  const help = commandId ? `lectern ${commandId.replaceAll(':', ' ')} --help` : 'lectern --help'
  return `${sentence} See \`${help}\`.`
}

/** The terminal width oclif would use for stderr: OCLIF_COLUMNS or COLUMNS, else the terminal's, else 80. */
function stderrColumns(): number {
  for (const value of [process.env.OCLIF_COLUMNS, process.env.COLUMNS, process.stderr.columns]) {
    const columns = Number(value)
    if (Number.isInteger(columns) && columns > 0) return columns
  }
  return 80
}

/**
 * An error as stderr shows it, in oclif's layout (indented, `Code:` on its own line) but wrapped
 * between words and trimmed, so a path or URL is never split and no line starts with a space.
 */
export function errorBlock(message: string, code: string): string {
  const width = Math.max(stderrColumns() - 6, 20)
  const wrapped = wrapAnsi(`Error: ${message}\nCode: ${code}`, width, { hard: false, trim: true })
  return `${wrapped
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n')}\n`
}
