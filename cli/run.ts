/**
 * What commands share: resolving the start-up settings, opening the data directory for the
 * length of a command (refusing a directory that holds no Lectern data: only `serve` and
 * `restore` create one), turning errors into the catalogue's exit codes (and `{"error",
 * "message"}` with --json), and progress on stderr.
 */
import { Command, type Interfaces } from '@oclif/core'
import { loadConfig, type ConfigOverrides, type ResolvedConfig } from '../src/config.js'
import { refuseRootOnForeignDataDir, requireExistingData } from '../src/install/data-dir.js'
import { asDiskFull, isDiskFull } from '../src/install/disk-full.js'
import { ERROR_CODES, LecternError, isLecternError, type ErrorCode } from '../src/errors.js'
import { jobError, waitForJob, whyNoServerRuns } from '../src/jobs/wait.js'
import { recordInstallMode, refuseOtherMode, withDatabaseMode, withRecordedMode } from '../src/install/mode.js'
import { dataPaths } from '../src/install/paths.js'
import { openRuntime, type Runtime } from '../src/runtime.js'
import type { Job } from '../src/store/jobs.js'
import { errorLine, parserMessage } from './error-text.js'
import { configFlag, dataDirFlag } from './flags.js'
import { Progress, progressMode } from './progress.js'

/**
 * `write`: the command changes the data directory, so a mode it was told is recorded in a
 * directory that has none yet (one restored from an archive of an older Lectern). `read`: it
 * records nothing.
 */
export type DataAccess = 'read' | 'write'

export interface RuntimeOptions {
  /** `lectern config set install.mode`: the switch itself, so a mode other than the recorded one is what it is for. */
  switchingMode?: boolean
}

/** What oclif's parser yields for flags and arguments (its own name for this type is not exported). */
type ParsedValues = Record<string, unknown>

/** An error as the catalogue knows it: Lectern errors as they are, oclif's parse errors as validation errors. */
function catalogued(err: Error & { oclif?: { exit?: number }; code?: string }, commandId: string | undefined): LecternError {
  if (isLecternError(err)) return err
  if (isDiskFull(err)) return asDiskFull(err, 'writing to the data directory') as LecternError
  // oclif's own refusals (unknown flag, missing argument, bad option) carry exit code 2.
  if (err.oclif?.exit === 2 || /Flag|Arg|Parse/i.test(err.constructor.name)) return new LecternError('validation_error', parserMessage(err.message, commandId))
  return new LecternError('internal_error', err.message || String(err), {}, { cause: err })
}

export abstract class LecternCommand extends Command {
  static override baseFlags = { 'data-dir': dataDirFlag, config: configFlag }

  /**
   * Anything the parser throws is a refusal of the command line (a flag or argument value that
   * does not parse, such as "abc" for an integer): oclif's own value parsers throw plain errors
   * that would otherwise read as internal errors.
   */
  protected override async parse<F extends ParsedValues, B extends ParsedValues, A extends ParsedValues>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    try {
      return await super.parse(options, argv)
    } catch (err) {
      if (isLecternError(err) || (err as { oclif?: { exit?: number } }).oclif?.exit === 0) throw err
      throw new LecternError('validation_error', parserMessage((err as Error).message, this.id), {}, { cause: err })
    }
  }

  /** The start-up settings for this command: its flags, then the environment, then lectern.yaml, then (the mode) the data directory's recorded one. */
  protected resolveConfig(flags: { 'data-dir'?: string; config?: string }, overrides: ConfigOverrides = {}): ResolvedConfig {
    const loaded = loadConfig({ ...overrides, dataDir: flags['data-dir'] ?? overrides.dataDir }, flags.config)
    // Before anything reads the directory (the recorded mode is in its database).
    refuseRootOnForeignDataDir(loaded.config.dataDir, this.commandLine())
    return withRecordedMode(loaded)
  }

  /** ` --data-dir DIR` when the command was given one, so a command it suggests works as printed. */
  protected dataDirArgument(root: string): string {
    return this.argv.some((arg) => arg === '--data-dir' || arg.startsWith('--data-dir=')) ? ` --data-dir ${root}` : ''
  }

  /** The command as people type it: `keys create`, not oclif's `keys:create`. */
  protected commandLine(): string {
    return (this.id ?? '').replaceAll(':', ' ')
  }

  /**
   * Opens the data directory for `work` and closes it afterwards; a directory without Lectern data
   * is refused, never created. A mode other than the one the directory records is refused before
   * it opens; a command that writes, told a mode, records it in a directory that has none yet.
   */
  protected async withRuntime<T>(
    flags: { 'data-dir'?: string; config?: string },
    access: DataAccess,
    work: (runtime: Runtime, resolved: ResolvedConfig) => Promise<T> | T,
    overrides: ConfigOverrides = {},
    options: RuntimeOptions = {},
  ): Promise<T> {
    const resolved = await withDatabaseMode(this.resolveConfig(flags, overrides), options.switchingMode)
    const { config } = resolved
    if (!options.switchingMode) refuseOtherMode(resolved)
    requireExistingData(resolved, this.commandLine())
    const paths = dataPaths(config.dataDir)
    // A full data volume shows as SQLite I/O errors too (no room for the WAL index): said as disk_full.
    const runtime = await openRuntime({ config }).catch((err: unknown) => Promise.reject(asDiskFull(err, `opening ${paths.root}`, paths.root)))
    try {
      const result = await work(runtime, resolved)
      // After the work: a command refused on the way changes nothing, the mode included.
      if (access === 'write' && !options.switchingMode && resolved.sources.mode !== 'default') await recordInstallMode(runtime.store.settings, config.mode)
      return result
    } catch (err) {
      throw asDiskFull(err, `writing to ${paths.root}`, paths.root)
    } finally {
      await runtime.close()
    }
  }

  /** Every failure ends with its catalogue exit code; with --json as `{"error", "message"}` on stdout. */
  protected override async catch(err: Error & { oclif?: { exit?: number } }): Promise<unknown> {
    // --help and --version end the command through an exit "error" of their own.
    if (err.oclif?.exit === 0) throw err
    const error = catalogued(err, this.id)
    if (this.jsonEnabled()) {
      this.logJson({ error: error.code, message: error.message, ...error.extra })
      process.exitCode = error.exit
      return
    }
    if (error.code === 'internal_error' && process.env.DEBUG) this.logToStderr(err.stack ?? String(err))
    process.stderr.write(errorLine(error.message, error.code))
    // Printed already: oclif's handler only ends the process with the exit code; a caller that
    // runs the command in-process still gets the error and its message.
    throw Object.assign(new Error(error.message), { oclif: { exit: error.exit }, code: error.code, skipOclifErrorHandling: true })
  }

  /** Says what was queued, and what will run it: a server, or nothing until `serve` or `--wait`. */
  protected async reportQueued(runtime: Runtime, message: string): Promise<void> {
    this.log(message)
    const unrun = await whyNoServerRuns(runtime.store)
    if (unrun) this.logToStderr(unrun)
  }

  /**
   * Follows a job until it ends. A failed job ends the command with its error's exit code,
   * unless `failureEndsCommand` is false (a batch that goes on with the next job).
   */
  protected async followJob(runtime: Runtime, jobPk: number, label: string, failureEndsCommand = true): Promise<Job> {
    const progress = this.progress(`${label}: queued`).start()
    const job = await waitForJob(runtime, jobPk, (j) => {
      progress.text = `${label}: ${j.statusMessage ?? j.state}`
    })
    if (job.state === 'failed') {
      // A failure that ends the command is said once, by its error line.
      if (failureEndsCommand) {
        progress.stop()
        throw jobError(job)
      }
      progress.fail(`${label}: ${job.errorMessage ?? 'failed'}`)
      return job
    }
    progress.succeed(`${label}: ${job.statusMessage ?? 'done'}`)
    return job
  }

  /** Progress on stderr; silent with --json. */
  protected progress(text: string): Progress {
    return new Progress(text, process.stderr, progressMode(process.stderr, this.jsonEnabled()))
  }
}

/** The exit code of an error code, for commands that end without throwing. */
export const exitCodeOf = (code: ErrorCode): number => ERROR_CODES[code].exit
