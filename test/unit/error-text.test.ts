/**
 * How a failed command's message reads: oclif's parser wording (the texts below are what its
 * parser throws, copied from it) made one sentence, and the stderr block wrapped between words.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { errorBlock, parserMessage } from '../../cli/error-text.js'

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

describe('errorBlock', () => {
  afterEach(() => vi.unstubAllEnvs())

  it('wraps between words at the terminal width, every line indented alike, the code last', () => {
    vi.stubEnv('OCLIF_COLUMNS', '40')
    const lines = errorBlock('The configuration file /srv/lectern/config/lectern.yaml cannot be read: permission denied.', 'validation_error').trimEnd().split('\n')
    expect(lines.length).toBeGreaterThan(2)
    for (const line of lines) {
      expect(line).toMatch(/^ {4}\S/)
      // 40 columns less oclif's margin of 6, unless one word is longer.
      if (line.trim().includes(' ')) expect(line.length - 4).toBeLessThanOrEqual(34)
    }
    // A path is longer than the width: it overflows its line rather than being cut.
    expect(lines).toContain('    /srv/lectern/config/lectern.yaml')
    expect(lines.at(-1)).toBe('    Code: validation_error')
  })

  it("keeps a message's own indentation (a YAML excerpt and the ^ under the bad column) and its blank lines empty", () => {
    vi.stubEnv('OCLIF_COLUMNS', '120')
    const message = 'The configuration file lectern.yaml is not valid YAML:\nNested mappings are not allowed at line 2, column 14:\n\n  cacheSize: b: c\n             ^\n'
    expect(errorBlock(message, 'validation_error')).toBe(
      [
        '    Error: The configuration file lectern.yaml is not valid YAML:',
        '    Nested mappings are not allowed at line 2, column 14:',
        '',
        '      cacheSize: b: c',
        '                 ^',
        '',
        '    Code: validation_error',
        '',
      ].join('\n'),
    )
  })
})
