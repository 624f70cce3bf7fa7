import fs from 'node:fs'
import path from 'node:path'
import pino from 'pino'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { createLogDestination } from '../../server/logger.js'
import { pollUntil } from '../helpers/poll.js'
import { tmpDir } from '../helpers/tmp.js'

async function logFile() {
  const file = path.join(await tmpDir(), 'lectern.log')
  const fd = fs.openSync(file, 'w')
  onTestFinished(() => fs.closeSync(fd))
  const lines = () => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { msg: string })
  return { fd, lines }
}

describe('the JSON log destination', () => {
  it('writes lines in batches, and a quiet server\'s lines within a moment', async () => {
    const { fd, lines } = await logFile()
    const log = pino({ level: 'info' }, createLogDestination('json', fd).stream)
    log.info('first')
    log.info('second')
    // Nothing is written per line: the two wait for more, or for the flush a moment later.
    expect(lines()).toEqual([])
    const written = await pollUntil('the waiting lines to be written', () => (lines().length === 2 ? lines() : undefined), 2000)
    expect(written.map((l) => l.msg)).toEqual(['first', 'second'])
  })

  it('loses nothing and keeps the order under a burst', async () => {
    const { fd, lines } = await logFile()
    const log = pino({ level: 'info' }, createLogDestination('json', fd).stream)
    for (let i = 0; i < 5000; i++) log.info({ i }, `line ${i}`)
    const written = await pollUntil('5,000 lines', () => (lines().length === 5000 ? lines() : undefined), 5000)
    expect(written.map((l) => l.msg)).toEqual(Array.from({ length: 5000 }, (_, i) => `line ${i}`))
  })

  it('writes whole lines, at most 4,096 bytes at a time (what a pipe shared by the serve --workers processes keeps whole), a longer line alone', async () => {
    const { fd, lines } = await logFile()
    const writes: string[] = []
    for (const method of ['write', 'writeSync'] as const) {
      const original = fs[method] as (...args: unknown[]) => unknown
      vi.spyOn(fs, method).mockImplementation(((...args: unknown[]) => {
        if (args[0] === fd) writes.push(String(args[1]))
        return original(...args)
      }) as never)
    }
    onTestFinished(() => {
      vi.restoreAllMocks()
    })
    const log = pino({ level: 'info' }, createLogDestination('json', fd).stream)
    const messages = Array.from({ length: 300 }, (_, i) => (i === 150 ? 'x'.repeat(6000) : `line ${i} ${'é'.repeat(i % 400)}`))
    for (const message of messages) log.info(message)
    await pollUntil('300 lines', () => (lines().length === 300 ? true : undefined), 5000)
    expect(lines().map((l) => l.msg)).toEqual(messages)
    expect(writes.length).toBeGreaterThan(1)
    for (const write of writes) {
      expect(write.endsWith('\n')).toBe(true)
      if (!write.includes('x'.repeat(6000))) expect(Buffer.byteLength(write)).toBeLessThanOrEqual(4096)
    }
    // Batched: far fewer writes than lines.
    expect(writes.length).toBeLessThan(150)
  })

  it('writes what waits when serve stops (flush)', async () => {
    const { fd, lines } = await logFile()
    const destination = createLogDestination('json', fd)
    pino({ level: 'info' }, destination.stream).info('last words')
    destination.flush()
    expect(lines().map((l) => l.msg)).toEqual(['last words'])
  })
})
