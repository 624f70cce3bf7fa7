/**
 * What commands share: opening the data directory for the length of a command, turning Lectern
 * errors into oclif errors with the catalogue's exit code, and a spinner on stderr.
 */
import { Command } from '@oclif/core'
import ora, { type Ora } from 'ora'
import { isLecternError } from '../src/errors.js'
import { openRuntime, type Runtime } from '../src/runtime.js'

export async function withRuntime<T>(dataDir: string, work: (runtime: Runtime) => Promise<T> | T): Promise<T> {
  const runtime = await openRuntime({ dataDir })
  try {
    return await work(runtime)
  } finally {
    await runtime.close()
  }
}

/** Base class: Lectern errors end the command with their message and exit code, never a stack. */
export abstract class LecternCommand extends Command {
  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    if (isLecternError(err)) {
      return super.catch(Object.assign(new Error(err.message), { oclif: { exit: err.exit }, code: err.code }) as never)
    }
    return super.catch(err)
  }

  /** A spinner on stderr, silent with --json or when stderr is not a terminal. */
  protected spinner(text: string): Ora {
    return ora({ text, stream: process.stderr, isEnabled: process.stderr.isTTY === true && !this.jsonEnabled() })
  }
}
