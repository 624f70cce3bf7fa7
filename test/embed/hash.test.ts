import { describe, expect, it } from 'vitest'
import { HashEmbedder } from '../../src/embed/hash.js'
import { splitIdentifiers } from '../../src/text/tokenizer.js'
import { createEmbedder, probeEmbedder } from '../../src/embed/index.js'
import { LecternError } from '../../src/errors.js'

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i]
  return dot
}

function norm(v: Float32Array): number {
  return Math.sqrt(cosine(v, v))
}

describe('splitIdentifiers', () => {
  it.each([
    ['useEffectHook', ['useeffecthook', 'use', 'effect', 'hook']],
    ['fs.readFile', ['fs.readfile', 'fs', 'read', 'file']],
    ['XMLHttpRequest', ['xmlhttprequest', 'xml', 'http', 'request']],
    ['snake_case_name', ['snake_case_name', 'snake', 'case', 'name']],
    ['kebab-case', ['kebab-case', 'kebab', 'case']],
    ['base64Encode', ['base64encode', 'base64', 'encode']],
    ['__init__', ['init']],
    ['Über Schall', ['über', 'schall']],
  ])('%s', (text, expected) => {
    expect(splitIdentifiers(text)).toEqual(expected)
  })

  it('keeps words in order with repeats, dropping punctuation', () => {
    expect(splitIdentifiers('Call readFile(), then readFile again.')).toEqual([
      'call', 'readfile', 'read', 'file', 'then', 'readfile', 'read', 'file', 'again',
    ])
  })

  it('returns nothing for text without words', () => {
    expect(splitIdentifiers('')).toEqual([])
    expect(splitIdentifiers(' -- ... ()')).toEqual([])
  })
})

describe('HashEmbedder', () => {
  it('is deterministic across instances', async () => {
    const text = 'Use fs.readFile to read a file into a Buffer.'
    const [a] = await new HashEmbedder().embed([text])
    const [b] = await new HashEmbedder().embed([text])
    expect(Array.from(a)).toEqual(Array.from(b))
  })

  it('has the default or configured dimension', async () => {
    expect(await new HashEmbedder().dimensions()).toBe(384)
    const e = new HashEmbedder({ dimensions: 64 })
    expect(await e.dimensions()).toBe(64)
    const vectors = await e.embed(['one', 'two words'])
    expect(vectors.map((v) => v.length)).toEqual([64, 64])
  })

  it('rejects bad dimensions and foreign models', () => {
    expect(() => new HashEmbedder({ dimensions: 0 })).toThrow(LecternError)
    expect(() => new HashEmbedder({ dimensions: 1.5 })).toThrow(/dimensions/)
    expect(() => new HashEmbedder({ model: 'bge-small' })).toThrow(/hash-v1/)
  })

  it('returns unit vectors, and a zero vector for empty text', async () => {
    const [a, b, empty, punct] = await new HashEmbedder().embed(['hello world', 'useEffectHook', '', '...'])
    expect(norm(a)).toBeCloseTo(1, 5)
    expect(norm(b)).toBeCloseTo(1, 5)
    expect(Array.from(empty).every((x) => x === 0)).toBe(true)
    expect(Array.from(punct).every((x) => x === 0)).toBe(true)
  })

  it('scores related texts above unrelated ones', async () => {
    const [query, related, unrelated] = await new HashEmbedder().embed([
      'read a file with fs.readFile',
      'readFile reads files',
      'configure the router with nested routes',
    ])
    expect(cosine(query, related)).toBeGreaterThan(cosine(query, unrelated) + 0.2)
  })

  it('matches identifier parts against plain words', async () => {
    const [ident, words, other] = await new HashEmbedder().embed(['useEffectHook', 'use effect hook', 'database migration'])
    expect(cosine(ident, words)).toBeGreaterThan(0.5)
    expect(cosine(ident, words)).toBeGreaterThan(cosine(ident, other))
  })

  it('honours an aborted signal', async () => {
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(new HashEmbedder().embed(['x'], controller.signal)).rejects.toThrow('stop')
  })

  it('embeds 20k short snippets per second', () => {
    const e = new HashEmbedder()
    const texts = Array.from({ length: 20_000 }, (_, i) => `Call fs.readFile(path) in useEffectHook number ${i}; it returns a Promise.`)
    const start = performance.now()
    for (const text of texts) e.embedOne(text)
    // Generous bound: CI machines are slower and shared; locally this runs in about a third.
    expect(performance.now() - start).toBeLessThan(2_000)
  })
})

describe('createEmbedder and probeEmbedder', () => {
  it('creates a hash embedder and probes its dimension', async () => {
    const e = createEmbedder({ provider: 'hash', dimensions: 128 })
    expect(e.provider).toBe('hash')
    expect(e.model).toBe('hash-v1')
    expect(await probeEmbedder(e)).toBe(128)
  })

  it('rejects an unknown provider', () => {
    expect(() => createEmbedder({ provider: 'cohere' } as never)).toThrow(/Unknown embedding provider "cohere"/)
  })

  it('rejects an openai embedder without host or model', () => {
    expect(() => createEmbedder({ provider: 'openai', model: 'm' })).toThrow(/needs a host/)
    expect(() => createEmbedder({ provider: 'openai', host: 'http://127.0.0.1:8080' })).toThrow(/needs a model/)
  })

  it('wraps a non-Lectern provider failure in a clear error', async () => {
    const broken = {
      provider: 'fake',
      model: 'm',
      dimensions: async () => 3,
      embed: async () => {
        throw new Error('boom')
      },
    }
    await expect(probeEmbedder(broken)).rejects.toThrow('The fake embedder (model "m") failed its probe: boom')
  })

  it('catches a provider whose announced dimension disagrees', async () => {
    const liar = { provider: 'fake', model: 'm', dimensions: async () => 4, embed: async () => [new Float32Array(3)] }
    await expect(probeEmbedder(liar)).rejects.toThrow(/announces 4 dimensions but returned 3/)
  })
})
