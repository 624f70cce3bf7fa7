/**
 * The JSON payload is read one library at a time (src/airgap/payload-bytes.ts): each element of
 * `libraries` is parsed and handed over before the next is read, so an import holds the file's
 * bytes and one library, never the whole payload parsed (bench/RESULTS.md, import RSS).
 */
import { describe, expect, it } from 'vitest'
import { forEachPayloadLibrary } from '../../src/airgap/payload-bytes.js'

describe('reading a JSON payload', () => {
  it('hands each library over before the next is read', () => {
    const seen: unknown[] = []
    const bytes = Buffer.from('{"libraries":[{"project":"/a/one"}, {"project":"/a/two","tags":["[","]","}"]},{"project":"/a/thr')
    expect(() => forEachPayloadLibrary(bytes, 'payload.json', (raw) => seen.push(raw))).toThrow('payload.json is not valid JSON.')
    expect(seen).toEqual([{ project: '/a/one' }, { project: '/a/two', tags: ['[', ']', '}'] }])
  })

  it('returns the payload\'s own force wherever it stands, and ignores other top-level fields', () => {
    const seen: unknown[] = []
    const read = (text: string) => forEachPayloadLibrary(Buffer.from(text), 'x', (raw) => seen.push(raw))
    expect(read('{"force":true,"libraries":[1,"two",[3]],"note":{"a":[1,{"b":null}]}}')).toEqual({ force: true })
    expect(read('{"libraries":[{}],"force":"true"}')).toEqual({ force: false })
    expect(seen).toEqual([1, 'two', [3], {}])
  })
})
