/**
 * How a failed command's message reads: oclif's parser wording (the texts below are what its
 * parser throws, copied from it) made one sentence, and the line stderr shows.
 */
import { describe, expect, it } from 'vitest'
import { errorLine, parserMessage } from '../../cli/error-text.js'

describe('parserMessage', () => {
  it.each([
    [
      'a flag value that does not parse',
      'Parsing --tokens \n\tExpected an integer less than or equal to 50000 but received: 1000000\nSee more help with --help',
      '--tokens: Expected an integer less than or equal to 50000 but received: 1000000. See `lectern docs --help`.',
    ],
    ['an empty flag value', 'Parsing --tokens \n\tExpected an integer but received: \nSee more help with --help', '--tokens: Expected an integer but received: "". See `lectern docs --help`.'],
    [
      'missing arguments',
      'Missing 2 required args:\nlibraryId  Library ID, optionally pinned: /owner/repo@version.\nquery      Your question in plain words.\nSee more help with --help',
      'Missing 2 required args: libraryId (Library ID, optionally pinned: /owner/repo@version); query (Your question in plain words). See `lectern docs --help`.',
    ],
    [
      'an argument whose description oclif wrapped onto an indented line',
      'Missing 1 required arg:\nname  Name of the teamspace (2 to 64 letters, digits, spaces, dots, dashes,\n      underscores).\nSee more help with --help',
      'Missing 1 required arg: name (Name of the teamspace (2 to 64 letters, digits, spaces, dots, dashes, underscores)). See `lectern docs --help`.',
    ],
    [
      'an argument with fixed choices',
      'Missing 1 required arg:\nkind  (confluence|notion|git) confluence, notion or git.\nSee more help with --help',
      'Missing 1 required arg: kind (confluence|notion|git) confluence, notion or git. See `lectern docs --help`.',
    ],
    ['a missing flag', 'The following error occurred:\n  Missing required flag owner\nSee more help with --help', 'Missing required flag --owner. See `lectern docs --help`.'],
    [
      'two missing flags',
      'The following errors occurred:\n  Missing required flag connection\n  Missing required flag page\nSee more help with --help',
      'Missing required flag --connection; Missing required flag --page. See `lectern docs --help`.',
    ],
    ['an unknown flag', 'Nonexistent flag: --frob\nSee more help with --help', 'Nonexistent flag: --frob. See `lectern docs --help`.'],
  ])('%s', (_, raw, sentence) => {
    expect(parserMessage(raw, 'docs')).toBe(sentence)
  })

  it("names a topic's command with spaces, and the CLI's help without a command", () => {
    expect(parserMessage('Unexpected argument: c\nSee more help with --help', 'keys:revoke')).toBe('Unexpected argument: c. See `lectern keys revoke --help`.')
    expect(parserMessage('Unexpected argument: c', undefined)).toBe('Unexpected argument: c. See `lectern --help`.')
  })
})

describe('errorLine', () => {
  it('says the error on one line, the code last in brackets, however long the message (the terminal wraps it)', () => {
    const message = 'The configuration file /srv/lectern/config/lectern.yaml cannot be read: permission denied. Check its mode and owner, then run the command again.'
    expect(errorLine(message, 'validation_error')).toBe(`Error: ${message} (validation_error)\n`)
  })

  it("joins a message's lines into its sentence and keeps the excerpt it quotes after a blank line (a YAML line and the ^ under the bad column)", () => {
    const message = 'The configuration file lectern.yaml is not valid YAML:\nNested mappings are not allowed at line 2, column 14:\n\n  cacheSize: b: c\n             ^\n'
    expect(errorLine(message, 'validation_error')).toBe(
      [
        'Error: The configuration file lectern.yaml is not valid YAML: Nested mappings are not allowed at line 2, column 14 (validation_error)',
        '',
        '  cacheSize: b: c',
        '             ^',
        '',
      ].join('\n'),
    )
  })
})
