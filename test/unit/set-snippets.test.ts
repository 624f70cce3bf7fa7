import { describe, expect, it } from 'vitest'
import { SetSnippets } from '../../src/index/set-snippets.js'
import type { SnippetHead } from '../../src/store/snippets.js'

/** A set's rendered texts as the engine file lays them out: each snippet's end offset, then the texts one after another. */
function textsOf(txt: string[], json: string[]) {
  const ends = (texts: string[]) => {
    let at = 0
    return Uint32Array.from(texts, (text) => (at += Buffer.byteLength(text)))
  }
  const bytes = Buffer.from(`${txt.join('')}${json.join('')}`)
  return { bytes, txtEnds: ends(txt), txtAt: 0, jsonEnds: ends(json), jsonAt: Buffer.byteLength(txt.join('')) }
}

describe('a loaded set\'s snippets', () => {
  const heads: SnippetHead[] = [
    { pk: 3, kind: 'code', title: 'Register a route', tokens: 40, hash: 'a' },
    { pk: 8, kind: 'info', title: 'Hooks: onRequest → preHandler', tokens: 12, hash: 'b' },
    { pk: 9, kind: 'code', title: '', tokens: 7, hash: 'c' },
    { pk: 120, kind: 'info', title: 'Écrire un plugin', tokens: 99, hash: 'd' },
  ]
  const txt = heads.map((h) => `### ${h.title}\nbody of ${h.pk} ✓\n`)
  const json = heads.map((h) => `{"title":${JSON.stringify(h.title)}`)
  const snippets = new SetSnippets(heads, textsOf(txt, json))

  it('answers each snippet as its row and rendered texts say', () => {
    expect(snippets.length).toBe(4)
    expect(snippets.all().map(({ pk, doc, kind, title, tokens }) => ({ pk, doc, kind, title, tokens }))).toEqual(heads.map(({ pk, kind, title, tokens }, doc) => ({ pk, doc, kind, title, tokens })))
    expect(snippets.all().map((s) => s.txt.toString())).toEqual(txt)
    expect(snippets.all().map((s) => s.json.toString())).toEqual(json)
    expect(heads.map((_, doc) => [snippets.pk(doc), snippets.tokens(doc)])).toEqual(heads.map((h) => [h.pk, h.tokens]))
  })

  it('finds a pk\'s position, and none for a pk not in the set', () => {
    for (const [doc, head] of heads.entries()) expect(snippets.docOf(head.pk)).toBe(doc)
    for (const missing of [0, 2, 4, 10, 119, 121, -1]) expect(snippets.docOf(missing)).toBeUndefined()
    expect(new SetSnippets([], textsOf([], [])).docOf(1)).toBeUndefined()
  })

  it('keeps pks beyond 32 bits exact', () => {
    const big = [2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 40 + 12_345, 2 ** 52 + 3].map((pk, i) => ({ ...heads[i % heads.length], pk }))
    const wide = new SetSnippets(big, textsOf(big.map(() => 't'), big.map(() => 'j')))
    expect(big.map((_, doc) => wide.pk(doc))).toEqual(big.map((h) => h.pk))
    expect(big.map((h) => wide.docOf(h.pk))).toEqual([0, 1, 2, 3, 4])
    expect(wide.docOf(2 ** 32 + 2)).toBeUndefined()
  })

  it('refuses a kind it does not know and a position past the set', () => {
    const odd = [{ ...heads[0], kind: 'api' as never }]
    expect(() => new SetSnippets(odd, textsOf(['t'], ['j']))).toThrow('of no known kind (api)')
    for (const doc of [-1, 4, 1.5, Number.NaN]) expect(() => snippets.at(doc)).toThrow(RangeError)
  })

  it('hands out snippets that carry their fields, not their set', () => {
    const snippet = snippets.at(1)
    expect(Object.keys(snippet).sort()).toEqual(['doc', 'json', 'kind', 'pk', 'tokens', 'txt'])
    expect(snippet.title).toBe('Hooks: onRequest → preHandler')
  })

  it('refuses heads that are not in pk order, which finding a pk relies on', () => {
    expect(() => new SetSnippets([heads[1], heads[0]], textsOf(txt.slice(0, 2), json.slice(0, 2)))).toThrow('not in pk order')
  })
})
