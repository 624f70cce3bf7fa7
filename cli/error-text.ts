/**
 * How a failed command reads on a terminal and in `--json`: one plain sentence, whatever said it.
 * oclif's parser speaks in lines (a header, a tab-indented detail, "See more help with --help"),
 * and oclif's printer indents and wraps, starting every continuation line with a space.
 */
const HELP_HINT = 'See more help with --help'

/**
 * oclif's parser refusal as one sentence that names the command's help:
 * "Parsing --tokens \n\tExpected an integer but received: abc" becomes
 * "--tokens: Expected an integer but received: abc. See `lectern docs --help`.", an argument list
 * ("query  Your question.", a long description going on in indented lines) becomes
 * "query (Your question)", and a list of flag problems is joined by semicolons.
 */
export function parserMessage(text: string, commandId: string | undefined): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '' && line.trim() !== HELP_HINT)
  const [first = 'The command line is not valid.', ...rest] = lines
  let sentence: string
  if (/^The following errors? occurred:$/.test(first.trim())) {
    sentence = rest.map((line) => line.trim().replace(/^Missing required flag (\w[\w-]*)$/, 'Missing required flag --$1')).join('; ')
  } else {
    const items: string[] = []
    for (const line of rest) {
      if (line.startsWith(' ') && items.length > 0) items[items.length - 1] += ` ${line.trim()}`
      else items.push(line.trim())
    }
    const flag = /^Parsing (\S+)\s*$/.exec(first)
    const head = flag ? `${flag[1]}:` : first.trim()
    // An option's choices already come in brackets: "plan (free|pro) The plan", not "plan ((free|pro) The plan)".
    const described = items.map((item) => item.replace(/^(\S+)\s{2,}(.*?)\.?$/, (_, name: string, about: string) => (about.startsWith('(') ? `${name} ${about}` : `${name} (${about})`)))
    sentence = [head, described.join('; ')].filter(Boolean).join(' ')
  }
  // "received:" with nothing after it: the value given was empty.
  sentence = sentence.endsWith(':') ? `${sentence} ""` : sentence.replace(/[.;]$/, '')
  const help = commandId ? `lectern ${commandId.replaceAll(':', ' ')} --help` : 'lectern --help'
  return `${sentence}. See \`${help}\`.`
}

/**
 * An error as stderr shows it: one line, `Error: <message> (<code>)`, left to the terminal to
 * wrap, so a path or URL is never split and a script can grep it. A message that quotes its input
 * after a blank line (a YAML excerpt and the `^` under the bad column) keeps that excerpt below,
 * with its own indentation.
 */
export function errorLine(message: string, code: string): string {
  const [head, ...excerpt] = message.trimEnd().split(/\n[ \t]*\n/)
  const sentence = head
    .split('\n')
    .map((line) => line.trim())
    .join(' ')
    .replace(/:$/, '')
  return `${[`Error: ${sentence} (${code})`, ...excerpt].join('\n\n')}\n`
}
