import { describe, expect, it } from 'vitest'
import { embeddingFromArgs } from '../../bench/eval/run-eval.js'

describe('npm run eval --embedding', () => {
  it('is the built-in hash embedder when not given', () => {
    expect(embeddingFromArgs(['--set', 'dev', '--signals'])).toBeUndefined()
  })

  it('names a real embedder, its model and host, and takes the key from the environment only', () => {
    const args = ['--signals', '--embedding', 'openai', '--embedding-model', 'nomic-embed-text', '--embedding-host', 'http://127.0.0.1:8080']
    expect(embeddingFromArgs(args, {})).toEqual({ provider: 'openai', model: 'nomic-embed-text', host: 'http://127.0.0.1:8080' })
    expect(embeddingFromArgs(args, { LECTERN_EVAL_EMBEDDING_KEY: 'sk-test' })?.apiKey).toBe('sk-test')
    expect(embeddingFromArgs(['--embedding', 'ollama', '--embedding-model', 'nomic-embed-text'], {})).toEqual({ provider: 'ollama', model: 'nomic-embed-text', host: undefined })
  })

  it('refuses an unknown provider, a missing value and a model without a provider', () => {
    expect(() => embeddingFromArgs(['--embedding', 'hash'])).toThrow('--embedding takes ollama or openai, not hash')
    expect(() => embeddingFromArgs(['--embedding', 'openai', '--embedding-model'])).toThrow('--embedding-model needs a value')
    expect(() => embeddingFromArgs(['--embedding', '--signals'])).toThrow('--embedding needs a value')
    expect(() => embeddingFromArgs(['--embedding-model', 'x'])).toThrow('--embedding-model goes with --embedding ollama|openai')
  })
})
