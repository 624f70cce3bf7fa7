/** Runs the built CLI (`node bin/run.js`) as users do: a separate process, no TTY. */
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url))

export interface CliResult {
  stdout: string
  stderr: string
  exitCode: number
}

export interface CliOptions {
  /** Working directory of the command (default: the project root). */
  cwd?: string
  /** Standard input; none when omitted. */
  input?: string
}

export async function runCli(args: string[], env: Record<string, string> = {}, options: CliOptions = {}): Promise<CliResult> {
  const result = await execa('node', [`${PROJECT_ROOT}bin/run.js`, ...args], {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: { NO_COLOR: '1', ...env },
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    reject: false,
    timeout: 60_000,
  })
  return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode ?? -1 }
}
