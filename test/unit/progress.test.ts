/**
 * cli/progress.ts: a redrawn status line only on a terminal of known width, plain lines
 * everywhere else (throttled when only counters change), never a write loop, never a line wider
 * than the terminal.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Progress, progressMode, type ProgressStream } from '../../cli/progress.js'

function stream(isTTY: boolean, columns?: number): ProgressStream & { writes: string[] } {
  const writes: string[] = []
  return { isTTY, columns, writes, write: (text: string) => writes.push(text) > 0 }
}

// eslint-disable-next-line no-control-regex
const ESCAPE = /\x1b\[/

afterEach(() => {
  vi.useRealTimers()
})

describe('progressMode', () => {
  it('is live only on a terminal at least 20 columns wide', () => {
    expect(progressMode(stream(true, 80), false)).toBe('live')
    expect(progressMode(stream(true, 20), false)).toBe('live')
    expect(progressMode(stream(true, 19), false)).toBe('lines')
    expect(progressMode(stream(true, 0), false)).toBe('lines')
    expect(progressMode(stream(true, undefined), false)).toBe('lines')
    expect(progressMode(stream(false, 200), false)).toBe('lines')
    expect(progressMode(stream(true, 80), true)).toBe('silent')
  })
})

describe('lines mode', () => {
  it('prints each new status as a plain line, counters at most every 5 s, and ends with a plain verdict', () => {
    let now = 0
    const out = stream(true, 0)
    const progress = new Progress('/acme/widgets: queued', out, 'lines', () => now).start()
    progress.text = '/acme/widgets: cloning'
    progress.text = '/acme/widgets: embedding 10/200'
    now += 1000
    progress.text = '/acme/widgets: embedding 20/200'
    now += 1000
    progress.text = '/acme/widgets: embedding 30/200'
    now += 5000
    progress.text = '/acme/widgets: embedding 190/200'
    progress.text = '/acme/widgets: writing'
    progress.succeed('/acme/widgets: 42 snippets')
    expect(out.writes).toEqual([
      '/acme/widgets: queued\n',
      '/acme/widgets: cloning\n',
      '/acme/widgets: embedding 10/200\n',
      '/acme/widgets: embedding 190/200\n',
      '/acme/widgets: writing\n',
      'done: /acme/widgets: 42 snippets\n',
    ])
    expect(out.writes.join('')).not.toMatch(ESCAPE)
  })

  it('does not repeat an unchanged status and writes nothing on a timer', () => {
    vi.useFakeTimers()
    const out = stream(false)
    const progress = new Progress('working', out, 'lines').start()
    progress.text = 'working'
    vi.advanceTimersByTime(60_000)
    progress.fail('broke')
    expect(out.writes).toEqual(['working\n', 'failed: broke\n'])
  })
})

describe('live mode', () => {
  it('redraws one line on a timer, cut to the terminal width, and clears it at the end', () => {
    vi.useFakeTimers()
    const out = stream(true, 30)
    const progress = new Progress('x'.repeat(100), out, 'live').start()
    vi.advanceTimersByTime(1200)
    const frames = out.writes.length
    expect(frames).toBeGreaterThan(5)
    expect(frames).toBeLessThan(15)
    for (const w of out.writes) {
      expect(w.startsWith('\r\x1b[2K')).toBe(true)
      expect([...w.replace(/\r\x1b\[2K/, '').replace(/\x1b\[[0-9;]*m/g, '')].length).toBeLessThanOrEqual(30)
    }
    progress.stop()
    const after = out.writes.length
    vi.advanceTimersByTime(10_000)
    expect(out.writes.length).toBe(after)
    expect(out.writes.at(-1)).toBe('\r\x1b[2K')
  })

  it('draws nothing when the terminal shrinks below the minimum width', () => {
    vi.useFakeTimers()
    const out = stream(true, 80)
    const progress = new Progress('cloning', out, 'live').start()
    const before = out.writes.length
    out.columns = 0
    vi.advanceTimersByTime(5000)
    expect(out.writes.length).toBe(before)
    progress.stop()
  })
})

describe('silent mode', () => {
  it('writes nothing at all', () => {
    const out = stream(true, 80)
    const progress = new Progress('x', out, 'silent').start()
    progress.text = 'y'
    progress.succeed('z')
    expect(out.writes).toEqual([])
  })
})
