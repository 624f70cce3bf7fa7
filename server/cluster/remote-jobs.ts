/**
 * The job runner as a worker process that does not run jobs sees it: the jobs run in the worker
 * process that does (under `serve --workers N`), so this one relays wake-ups after it queues a
 * job and reports, for readiness, whether that job worker runs.
 */
import type { JobRunner } from '../../src/jobs/runner.js'

export class RemoteJobRunner implements JobRunner {
  /** @param running what the primary knew of the job worker when this process started; changes follow as messages. */
  constructor(
    private readonly wakeRemote: () => void,
    private running: boolean,
  ) {}

  get isRunning(): boolean {
    return this.running
  }

  /** What the primary last said about the job worker. */
  setRunning(running: boolean): void {
    this.running = running
  }

  /** The process that runs the jobs starts them; nothing starts here. */
  start(): void {}

  wake(): void {
    this.wakeRemote()
  }

  /** Nothing runs here to stop; the process that runs the jobs stops them. */
  async stop(): Promise<void> {}

  async drain(): Promise<void> {
    throw new Error('jobs run in the worker process that runs jobs, not here')
  }
}
