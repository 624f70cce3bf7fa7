/**
 * oclif's `command_not_found` hook: an unknown command is a validation error like an unknown
 * flag, so with --json it ends as `{"error": "validation_error", "message"}` on stdout with that
 * code's exit code, as every other failure does (cli/run.ts), rather than oclif's text.
 */
import type { Hook } from '@oclif/core'
import { ERROR_CODES } from '../../src/errors.js'

const hook: Hook.CommandNotFound = async function ({ id, argv, config }) {
  const message = `Unknown command "${id.replaceAll(':', ' ')}": \`${config.bin} --help\` lists the commands.`
  const { exit } = ERROR_CODES.validation_error
  if (argv?.includes('--json')) {
    this.log(JSON.stringify({ error: 'validation_error', message }, null, 2))
    process.exitCode = exit
    return
  }
  this.error(message, { exit })
}

export default hook
