/**
 * Progress of long work on stderr. On a terminal whose width is known, one status line is
 * redrawn in place with a spinner; anywhere else (a pipe, a CI log, a pseudo-terminal reporting
 * 0 columns) each new status is printed as a plain line, counters at most every few seconds,
 * with no escape codes. Nothing is drawn in a loop: a redraw happens on a timer or a change,
 * and always fits the width, so a terminal that misreports its size cannot make it spin.
 */
import ansis from 'ansis'

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const FRAME_MS = 120
/** Narrower than this, a redrawn line is not worth it: print lines instead. */
const MIN_LIVE_COLUMNS = 20
/** In line mode, a status that differs from the last one only in its numbers waits this long. */
const COUNTER_LINE_MS = 5_000

export type ProgressMode = 'live' | 'lines' | 'silent'

export interface ProgressStream {
  isTTY?: boolean
  columns?: number
  write(text: string): boolean
}

export function progressMode(stream: ProgressStream, quiet: boolean): ProgressMode {
  if (quiet) return 'silent'
  return stream.isTTY === true && (stream.columns ?? 0) >= MIN_LIVE_COLUMNS ? 'live' : 'lines'
}

const shapeOf = (text: string) => text.replace(/\d+(\.\d+)?/g, '#')

export class Progress {
  private timer: NodeJS.Timeout | undefined
  private frame = 0
  private current: string
  private printed: { text: string; at: number } | undefined

  constructor(
    text: string,
    private readonly stream: ProgressStream = process.stderr,
    private readonly mode: ProgressMode = progressMode(stream, false),
    private readonly now: () => number = Date.now,
  ) {
    this.current = text
  }

  start(): this {
    if (this.mode === 'live') {
      this.timer = setInterval(() => this.draw(), FRAME_MS)
      this.timer.unref()
      this.draw()
    } else {
      this.printLine(this.current, true)
    }
    return this
  }

  get text(): string {
    return this.current
  }

  set text(value: string) {
    if (value === this.current) return
    this.current = value
    if (this.mode === 'live') this.draw()
    else this.printLine(value, false)
  }

  succeed(message: string): void {
    this.end(`${this.colour ? ansis.green('✔') : 'done:'} ${message}`)
  }

  fail(message: string): void {
    this.end(`${this.colour ? ansis.red('✖') : 'failed:'} ${message}`)
  }

  stop(): void {
    this.end(undefined)
  }

  private get colour(): boolean {
    return this.mode === 'live' && ansis.isSupported()
  }

  private end(message: string | undefined): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    if (this.mode === 'silent') return
    if (this.mode === 'live') this.stream.write('\r\x1b[2K')
    if (message !== undefined) this.stream.write(`${message}\n`)
  }

  private draw(): void {
    const columns = this.stream.columns ?? 0
    if (columns < MIN_LIVE_COLUMNS) return
    const frame = FRAMES[this.frame++ % FRAMES.length]
    const room = columns - 3
    const chars = [...this.current.replace(/\s+/g, ' ')]
    const text = chars.length > room ? `${chars.slice(0, room - 1).join('')}…` : chars.join('')
    this.stream.write(`\r\x1b[2K${ansis.cyan(frame)} ${text}`)
  }

  private printLine(text: string, force: boolean): void {
    if (this.mode !== 'lines') return
    const now = this.now()
    const last = this.printed
    if (!force && last && shapeOf(last.text) === shapeOf(text) && now - last.at < COUNTER_LINE_MS) return
    this.printed = { text, at: now }
    this.stream.write(`${text}\n`)
  }
}
