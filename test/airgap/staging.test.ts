/**
 * A library is staged as it is read (src/airgap/staging.ts): each valid snippet is appended as a
 * line, and a library that ends valid becomes one file, its fields and then its snippets in the
 * order they will be served; an invalid one leaves nothing. The import job reads it back.
 */
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { readStagedLibrary, StagedLibrary, type StagedResult } from '../../src/airgap/staging.js'
import { isLecternError } from '../../src/errors.js'
import { tmpDir } from '../helpers/tmp.js'

const info = (content: string, id?: string) => ({ content, breadcrumb: 'Guide', ...(id === undefined ? {} : { id }) })
const code = (text: string, id?: string) => ({ title: `Example ${text}`, codeList: [{ language: 'ts', code: text }], ...(id === undefined ? {} : { id }) })

/** Stages a library as the payload reader hands it over: its fields, then each list's elements. */
async function stage(fields: Record<string, unknown>, lists: { infoSnippets?: unknown[]; codeSnippets?: unknown[] }): Promise<{ result: StagedResult; dir: string }> {
  const dir = await tmpDir()
  let result: StagedResult | undefined
  const staged = new StagedLibrary(path.join(dir, '1.json'), (r) => (result = r))
  for (const [key, value] of Object.entries(fields)) staged.field(key, value)
  for (const name of ['infoSnippets', 'codeSnippets'] as const) {
    const list = lists[name]
    if (!list) continue
    staged.list(name)
    list.forEach((raw, i) => staged.snippet(name, i, raw))
  }
  staged.end()
  return { result: result!, dir }
}

describe('staging a library', () => {
  it('serves the snippets in the order of their ordinal ids, across both lists', async () => {
    const { result, dir } = await stage({ project: '/acme/widgets', title: 'Widgets' }, { infoSnippets: [info('second', '1'), info('fourth', '3')], codeSnippets: [code('first', '0'), code('third', '2')] })
    expect(result).toMatchObject({ ok: true, library: { id: '/acme/widgets', title: 'Widgets' }, snippets: 4 })
    expect(fs.readdirSync(dir)).toEqual(['1.json'])
    const { library, snippets } = await readStagedLibrary(path.join(dir, '1.json'))
    expect(library).toEqual({ id: '/acme/widgets', title: 'Widgets', description: '', sourceKind: 'import', sourceUrl: '', branch: null })
    expect(snippets.map((s) => s.body)).toEqual([JSON.stringify([{ language: 'ts', code: 'first' }]), 'second', JSON.stringify([{ language: 'ts', code: 'third' }]), 'fourth'])
  })

  it('puts code first when a snippet has no ordinal id, keeping each list in its order', async () => {
    const { result, dir } = await stage({ project: '/acme/widgets' }, { infoSnippets: [info('a'), info('b', '0')], codeSnippets: [code('c'), code('d')] })
    expect(result.ok).toBe(true)
    const { snippets } = await readStagedLibrary(path.join(dir, '1.json'))
    expect(snippets.map((s) => (s.kind === 'code' ? s.title : s.body))).toEqual(['Example c', 'Example d', 'a', 'b'])
  })

  it('leaves nothing for an invalid library, and says why: its fields first, then its first bad snippet', async () => {
    const badSnippet = await stage({ project: '/acme/bad' }, { infoSnippets: [info('fine'), { content: 7 }, { content: '' }], codeSnippets: [] })
    expect(badSnippet.result).toEqual({ ok: false, project: '/acme/bad', reason: 'invalid: field infoSnippets.1.content: Expected string, received number' })
    expect(fs.readdirSync(badSnippet.dir)).toEqual([])
    const badFields = await stage({ project: '/acme/bad@1.0' }, { infoSnippets: [{ content: 7 }], codeSnippets: [] })
    expect(badFields.result).toMatchObject({ ok: false, reason: expect.stringMatching(/version pin/) })
    const noList = await stage({ project: '/acme/bad' }, { infoSnippets: [info('x')] })
    expect(noList.result).toMatchObject({ ok: false, reason: 'invalid: field codeSnippets: Required' })
    expect(fs.readdirSync(noList.dir)).toEqual([])
  })

  it('reads a file staged by 0.1.0, and refuses a damaged one naming the line', async () => {
    const dir = await tmpDir()
    const snippet = { kind: 'info', title: '', description: '', breadcrumb: '', pageTitle: '', language: '', body: 'old', source: '', tokens: 1, hash: 'h' }
    const fields = { id: '/acme/old', title: 'old', description: '', sourceKind: 'import', sourceUrl: '', branch: null }
    const old = path.join(dir, 'old.json')
    fs.writeFileSync(old, JSON.stringify({ ...fields, snippets: [snippet] }))
    expect(await readStagedLibrary(old)).toEqual({ library: fields, snippets: [snippet] })

    const damaged = path.join(dir, 'damaged.json')
    fs.writeFileSync(damaged, `${JSON.stringify({ ...fields, snippets: 2 })}\n${JSON.stringify(snippet)}\n{"kind":"info"\n`)
    const err = await readStagedLibrary(damaged).catch((e: unknown) => e)
    expect(isLecternError(err) && err.code).toBe('internal_error')
    expect((err as Error).message).toBe('The staged import damaged.json is damaged: line 3 is not JSON.')
    fs.writeFileSync(damaged, `${JSON.stringify({ ...fields, snippets: 2 })}\n${JSON.stringify(snippet)}\n`)
    await expect(readStagedLibrary(damaged)).rejects.toThrow('it holds 1 of 2 snippets')
  })
})
