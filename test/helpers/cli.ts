/** Runs the built CLI (`node bin/run.js`) as users do: a separate process, no TTY. */
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url))

export interface CliResult {
  stdout: string
  stderr: string
  exitCode: number
}

export async function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const result = await execa('node', ['bin/run.js', ...args], {
    cwd: PROJECT_ROOT,
    env: { NO_COLOR: '1', ...env },
    stdin: 'ignore',
    reject: false,
    timeout: 60_000,
  })
  return { stdout: result.stdout, stderr: result.stderr, exitCode: result.exitCode ?? -1 }
}
