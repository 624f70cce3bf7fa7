/**
 * With --json, every failure is data: stdout holds exactly `{"error": code, "message": ...}` and
 * the process exits with the code's documented exit code (docs/errors.md), whether the error is
 * Lectern's own, a refusal of oclif's argument parser, or something nobody expected.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { ERROR_CODES } from '../../src/errors.js'
import { runCli } from '../helpers/cli.js'
import { tmpDataDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 120_000 })

/** stdout must be one JSON object with exactly these two keys (plus the code's documented extras). */
function errorOf(stdout: string): { error: string; message: string } {
  const body = JSON.parse(stdout) as { error: string; message: string }
  expect(Object.keys(body).sort()).toEqual(['error', 'message'])
  expect(body.message).toEqual(expect.any(String))
  return body
}

async function dataDirWithKey(): Promise<string> {
  const dataDir = await tmpDataDir()
  expect((await runCli(['keys', 'create', '--name', 'ci', '--data-dir', dataDir])).exitCode).toBe(0)
  return dataDir
}

describe('--json errors', () => {
  it('a Lectern error: its code and its exit code', async () => {
    const dataDir = await dataDirWithKey()
    const result = await runCli(['keys', 'revoke', '42', '--json', '--data-dir', dataDir])
    expect(result.exitCode).toBe(ERROR_CODES.key_not_found.exit)
    expect(errorOf(result.stdout)).toEqual({ error: 'key_not_found', message: expect.stringContaining('42') })
  })

  it('an unknown flag: validation_error, exit 2, without oclif internals', async () => {
    const dataDir = await dataDirWithKey()
    const result = await runCli(['keys', 'list', '--bogus', '--json', '--data-dir', dataDir])
    expect(result.exitCode).toBe(ERROR_CODES.validation_error.exit)
    const body = errorOf(result.stdout)
    expect(body).toEqual({ error: 'validation_error', message: expect.stringContaining('--bogus') })
    expect(result.stdout).not.toMatch(/oclif|at \w+ \(|\.js:\d+/)
  })

  it('a missing argument: validation_error, exit 2', async () => {
    const dataDir = await dataDirWithKey()
    const result = await runCli(['keys', 'revoke', '--json', '--data-dir', dataDir])
    expect(result.exitCode).toBe(2)
    expect(errorOf(result.stdout)).toEqual({ error: 'validation_error', message: expect.stringContaining('Missing 1 required arg') })
  })

  it('an unknown command: validation_error, exit 2, and the same exit code without --json', async () => {
    const [json, text, withArgs] = await Promise.all([runCli(['nosuchcommand', '--json']), runCli(['keys', 'nosuch']), runCli(['docz', '/acme/widgets', 'install'])])
    expect(json.exitCode).toBe(ERROR_CODES.validation_error.exit)
    expect(errorOf(json.stdout)).toEqual({ error: 'validation_error', message: 'Unknown command "nosuchcommand": `lectern --help` lists the commands.' })
    expect(json.stderr).toBe('')
    expect(text.exitCode).toBe(ERROR_CODES.validation_error.exit)
    expect(text.stdout).toBe('')
    expect(text.stderr).toBe('Error: Unknown command "keys nosuch": `lectern --help` lists the commands. (validation_error)')
    // The unknown command is its word, not the whole command line oclif hands the hook.
    expect(withArgs.exitCode).toBe(ERROR_CODES.validation_error.exit)
    expect(withArgs.stderr).toContain('Unknown command "docz": `lectern --help`')
  })

  it('a value the parser refuses (an integer argument or flag given "abc"): validation_error, exit 2, with and without --json', async () => {
    const dataDir = await dataDirWithKey()
    const [arg, flag, text] = await Promise.all([
      runCli(['keys', 'revoke', 'abc', '--json', '--data-dir', dataDir]),
      runCli(['config', 'set', 'embedding.provider', 'hash', '--dimensions', 'abc', '--json', '--data-dir', dataDir]),
      runCli(['keys', 'revoke', 'abc', '--data-dir', dataDir]),
    ])
    expect(arg.exitCode).toBe(ERROR_CODES.validation_error.exit)
    expect(errorOf(arg.stdout)).toEqual({ error: 'validation_error', message: 'Expected an integer but received: abc. See `lectern keys revoke --help`.' })
    expect(flag.exitCode).toBe(ERROR_CODES.validation_error.exit)
    expect(errorOf(flag.stdout)).toEqual({ error: 'validation_error', message: expect.stringContaining('Expected an integer but received: abc') })
    expect(text.exitCode).toBe(ERROR_CODES.validation_error.exit)
    expect(text.stderr).toContain('validation_error')
  })

  it('a bad option value: validation_error, exit 2', async () => {
    const result = await runCli(['connections', 'list', '--kind', 'ftp', '--json', '--data-dir', await dataDirWithKey()])
    expect(result.exitCode).toBe(2)
    expect(errorOf(result.stdout).error).toBe('validation_error')
  })

  it('an unexpected error: internal_error, exit 1, no stack trace', async () => {
    const dataDir = await tmpDataDir()
    await writeFile(path.join(dataDir, 'lectern.db'), 'this is not an SQLite database, it is a text file\n')
    const result = await runCli(['keys', 'list', '--json', '--data-dir', dataDir])
    expect(result.exitCode).toBe(ERROR_CODES.internal_error.exit)
    expect(errorOf(result.stdout).error).toBe('internal_error')
    expect(result.stdout).not.toMatch(/\n\s+at /)
  })

  it('without --json the same errors end with the same exit codes, the message on stderr and nothing on stdout', async () => {
    const dataDir = await dataDirWithKey()
    const [lectern, parse] = await Promise.all([
      runCli(['keys', 'revoke', '42', '--data-dir', dataDir]),
      runCli(['keys', 'list', '--bogus', '--data-dir', dataDir]),
    ])
    expect([lectern.exitCode, parse.exitCode]).toEqual([4, 2])
    expect([lectern.stdout, parse.stdout]).toEqual(['', ''])
    expect(lectern.stderr).toContain('No API key with ID 42')
    expect(parse.stderr).toContain('--bogus')
  })
})
