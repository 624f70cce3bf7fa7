/** Runs the built CLI (`node bin/run.js`) as users do: a separate process, no TTY. */
import { fileURLToPath } from 'node:url'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { execa } from 'execa'
import { databaseEnvFor } from './stores.js'

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url))

const CLI_TIMEOUT_MS = 60_000

export interface CliResult {
  stdout: string
  stderr: string
  exitCode: number
}

/** Variables added to the test runner's environment; one set to undefined is removed. */
export type CliEnv = Record<string, string | undefined>

export interface CliOptions {
  /** Working directory of the command (default: the project root). */
  cwd?: string
  /** Standard input; none when omitted. */
  input?: string
}

/** The data directory a command names, by flag or environment. */
function dataDirOf(args: string[], env: CliEnv): string | undefined {
  const at = args.indexOf('--data-dir')
  if (at >= 0) return args[at + 1]
  return args.find((arg) => arg.startsWith('--data-dir='))?.slice('--data-dir='.length) ?? env.LECTERN_DATA_DIR
}

/** In the PostgreSQL run of the suites, a command on an app's data directory reaches that app's database, as an operator's would through DATABASE_URL. */
export async function runCli(args: string[], env: CliEnv = {}, options: CliOptions = {}): Promise<CliResult> {
  const result = await execa('node', [`${PROJECT_ROOT}bin/run.js`, ...args], {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: { NO_COLOR: '1', ...databaseEnvFor(dataDirOf(args, env)), ...env },
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    reject: false,
    timeout: CLI_TIMEOUT_MS,
  })
  // A command the timeout ended says so, for the failure message of the test that waited on it.
  const stderr = result.timedOut ? `${result.stderr}\n[runCli: killed after ${CLI_TIMEOUT_MS / 1000} s]` : result.stderr
  return { stdout: result.stdout, stderr, exitCode: result.exitCode ?? -1 }
}

/** `lectern mcp` on a data directory, spawned as an MCP client spawns it (with the SDK's default environment). */
export function mcpStdio(dataDir: string): StdioClientTransport {
  return new StdioClientTransport({ command: process.execPath, args: ['bin/run.js', 'mcp', '--data-dir', dataDir], cwd: PROJECT_ROOT, stderr: 'pipe', env: { ...getDefaultEnvironment(), ...databaseEnvFor(dataDir) } })
}
