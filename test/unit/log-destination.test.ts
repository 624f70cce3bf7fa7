import fs from 'node:fs'
import path from 'node:path'
import pino from 'pino'
import { describe, expect, it, onTestFinished } from 'vitest'
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

  it('writes what waits when serve stops (flush)', async () => {
    const { fd, lines } = await logFile()
    const destination = createLogDestination('json', fd)
    pino({ level: 'info' }, destination.stream).info('last words')
    destination.flush()
    expect(lines().map((l) => l.msg)).toEqual(['last words'])
  })
})
