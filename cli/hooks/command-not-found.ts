/**
 * oclif's `command_not_found` hook: an unknown command is a validation error like an unknown
 * flag, so with --json it ends as `{"error": "validation_error", "message"}` on stdout with that
 * code's exit code, as every other failure does (cli/run.ts), rather than oclif's text.
 *
 * oclif finds commands through oclif.manifest.json, which `npm run build` writes after tsc. A
 * command compiled after the manifest was written (a plain `tsc` after adding one) exists but is
 * not listed: that is said as a broken build, with the fix, rather than as an unknown command.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Hook, Interfaces } from '@oclif/core'
import { ERROR_CODES, type ErrorCode } from '../../src/errors.js'
import { errorLine } from '../error-text.js'

/** Whether the commands directory holds the command `id` (`keys:list`, `backup`) that the manifest lacks. */
function builtButUnlisted(id: string, config: Interfaces.Config): boolean {
  const commandsDir = config.pjson.oclif.commands
  // Only ids that can name a file inside the commands directory are looked up.
  if (typeof commandsDir !== 'string' || !/^[a-z0-9-]+(:[a-z0-9-]+)*$/i.test(id)) return false
  const file = path.join(config.root, commandsDir, ...id.split(':'))
  return fs.existsSync(`${file}.js`) || fs.existsSync(path.join(file, 'index.js'))
}

/**
 * The words of `id` that name the unknown command: oclif joins every word of the command line
 * into `id` (`docz:/acme/widgets:q`), so the command is the known topics it starts with and the
 * one word after them (`docz`, `keys nosuch`).
 */
function unknownCommand(id: string, config: Interfaces.Config): string {
  const words = id.split(':')
  let known = 0
  while (known < words.length - 1 && config.findTopic(words.slice(0, known + 1).join(':'))) known++
  return words.slice(0, known + 1).join(' ')
}

const hook: Hook.CommandNotFound = async function ({ id, argv, config }) {
  const stale = builtButUnlisted(id, config)
  const code: ErrorCode = stale ? 'internal_error' : 'validation_error'
  const message = stale
    ? `"${id.replaceAll(':', ' ')}" is built but missing from oclif.manifest.json, which predates it: run \`npm run build\` to write the manifest again.`
    : `Unknown command "${unknownCommand(id, config)}": \`${config.bin} --help\` lists the commands.`
  const { exit } = ERROR_CODES[code]
  if (argv?.includes('--json')) {
    this.log(JSON.stringify({ error: code, message }, null, 2))
    process.exitCode = exit
    return
  }
  process.stderr.write(errorLine(message, code))
  this.exit(exit)
}

export default hook
