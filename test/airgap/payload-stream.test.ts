/**
 * The JSON payload is read a snippet at a time (src/airgap/payload-stream.ts): the scanner walks
 * the payload, its libraries and their snippet arrays, and hands each other value over parsed on
 * its own, so an import holds a window of the file and one snippet, never a library parsed whole
 * (bench/RESULTS.md, import memory).
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { MAX_VALUE_BYTES } from '../../src/airgap/json-scanner.js'
import { readPayloadFile, type LibraryVisitor } from '../../src/airgap/payload-stream.js'
import { tmpDir } from '../helpers/tmp.js'

/** A visitor that writes down what it is handed, as `<library>:<event>` lines. */
function recorder(events: string[]): () => LibraryVisitor {
  let n = 0
  return () => {
    const at = n++
    return {
      notAnObject: (value) => events.push(`${at}:whole ${JSON.stringify(value)}`),
      field: (key, value) => events.push(`${at}:${key}=${JSON.stringify(value)}`),
      list: (name) => events.push(`${at}:${name}[]`),
      snippet: (list, index, raw) => events.push(`${at}:${list}[${index}]=${JSON.stringify(raw)}`),
      end: () => events.push(`${at}:end`),
    }
  }
}

async function payloadFile(text: string | Buffer): Promise<string> {
  const file = path.join(await tmpDir(), 'payload.json')
  fs.writeFileSync(file, text)
  return file
}

describe('reading a JSON payload', () => {
  it('hands each snippet over as it is read, before the bytes after it are judged', async () => {
    const events: string[] = []
    const file = await payloadFile('{"libraries":[{"project":"/a/one","infoSnippets":[{"content":"x"}, {"content":"[]}{"}],"codeSnippets":"no"}, {"project":"/a/two","infoSnippets":[{"content":"y"},{"conte')
    await expect(readPayloadFile(file, 'payload.json', recorder(events))).rejects.toThrow('payload.json is not valid JSON.')
    expect(events).toEqual([
      '0:project="/a/one"',
      '0:infoSnippets[]',
      '0:infoSnippets[0]={"content":"x"}',
      '0:infoSnippets[1]={"content":"[]}{"}',
      // Not an array: handed over as a field, for the library's check to refuse.
      '0:codeSnippets="no"',
      '0:end',
      '1:project="/a/two"',
      '1:infoSnippets[]',
      '1:infoSnippets[0]={"content":"y"}',
    ])
  })

  it("returns the payload's own force wherever it stands, ignores other top-level fields and hands over elements that are not objects whole", async () => {
    const events: string[] = []
    const read = async (text: string) => readPayloadFile(await payloadFile(text), 'x', recorder(events))
    expect(await read('{"force":true,"libraries":[1,"two",[3]],"note":{"a":[1,{"b":null}]}}')).toEqual({ force: true })
    expect(events).toEqual(['0:whole 1', '0:end', '1:whole "two"', '1:end', '2:whole [3]', '2:end'])
    expect(await read('{"libraries":[{}],"force":"true"}')).toEqual({ force: false })
  })

  it('reads a file larger than its window, with values that straddle the window edge', async () => {
    const events: string[] = []
    const content = 'é'.repeat(700_000)
    const snippets = Array.from({ length: 3 }, (_, i) => ({ content: `${i}${content}` }))
    const file = await payloadFile(JSON.stringify({ libraries: [{ project: '/a/big', infoSnippets: snippets }] }))
    expect(fs.statSync(file).size).toBeGreaterThan(4 * 1024 * 1024)
    await readPayloadFile(file, 'x', recorder(events))
    expect(events.filter((e) => e.includes('infoSnippets[') && e.includes(']=')).map((e) => (JSON.parse(e.slice(e.indexOf('=') + 1)) as { content: string }).content)).toEqual(snippets.map((s) => s.content))
  })

  it('gives the event loop turns while it reads, so a server reading an import keeps answering', async () => {
    const snippets = Array.from({ length: 2000 }, (_, i) => ({ content: `snippet ${i} `.repeat(100) }))
    const file = await payloadFile(JSON.stringify({ libraries: [{ project: '/a/big', infoSnippets: snippets }] }))
    expect(fs.statSync(file).size).toBeGreaterThan(2 * 1024 * 1024)
    let turns = 0
    const ticker = setInterval(() => turns++, 0)
    try {
      await readPayloadFile(file, 'x', recorder([]))
    } finally {
      clearInterval(ticker)
    }
    expect(turns).toBeGreaterThan(0)
  })

  it('refuses one value over the cap, keys it meets twice or poisoned, and bytes that are not UTF-8, naming the file', async () => {
    const big = await payloadFile(`{"libraries":[{"project":"/a/x","infoSnippets":[{"content":"${'x'.repeat(MAX_VALUE_BYTES)}"}]}]}`)
    await expect(readPayloadFile(big, 'big.json', recorder([]))).rejects.toThrow(/^big\.json holds \d+ bytes at libraries\[0\]\.infoSnippets\[0\], over the 16 MB one value may take/)
    const refusals: Array<[string | Buffer, RegExp]> = [
      ['{"libraries":[{"project":"/a/x","project":"/a/y"}]}', /^x names "project" twice\.$/],
      ['{"libraries":[{"project":"/a/x","__proto__":{}}]}', /^x may not contain __proto__ or constructor keys\.$/],
      ['{"libraries":[{"project":"/a/x","infoSnippets":[{"content":"x","constructor":{"prototype":{}}}]}]}', /^x may not contain __proto__ or constructor keys\.$/],
      [Buffer.concat([Buffer.from('{"libraries":[{"project":"/a/caf'), Buffer.from([0xe9]), Buffer.from('"}]}')]), /^x is not valid UTF-8 text/],
      ['[{"project":"/a/x"}]', /^The body must be \{"libraries"/],
      ['{"libraries":[{"project":"/a/x",}]}', /^x is not valid JSON\.$/],
    ]
    for (const [text, message] of refusals) {
      const file = await payloadFile(text)
      await expect(readPayloadFile(file, 'x', recorder([])), String(text)).rejects.toThrow(message)
    }
  })
})
