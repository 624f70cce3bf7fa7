import { describe, expect, it } from 'vitest'
import { rankedSnippets, sourceFile } from '../../src/eval/answers.js'
import { scoreAnswer, summarize } from '../../src/eval/metrics.js'
import type { EvalQuestion } from '../../src/eval/questions.js'

const question: EvalQuestion = { library: 'x', question: 'how to mount', relevant: { 'docs/mount.md': 2, 'docs_src/app.py': 1 }, codeMustContain: 'app.mount(' }

describe('eval metrics', () => {
  it('reads files from every source link shape', () => {
    expect(sourceFile('https://github.com/o/r/blob/abc123/docs/a%20b.md#x')).toBe('docs/a b.md')
    expect(sourceFile('https://gitlab.example.com/g/r/-/blob/main/docs/a.md')).toBe('docs/a.md')
    expect(sourceFile('https://bitbucket.org/o/r/src/main/docs/a.md#x')).toBe('docs/a.md')
    expect(sourceFile('docs/a.md#anchor')).toBe('docs/a.md')
    expect(sourceFile('https://docs.example.com/guide/intro#setup')).toBe('https://docs.example.com/guide/intro')
  })

  it("orders by Lectern's rank over both arrays and credits included files", () => {
    const ranked = rankedSnippets({
      codeSnippets: [{ codeTitle: 't', codeDescription: '', codeLanguage: 'python', codeTokens: 1, codeId: 'docs/other.md#a', pageTitle: '', codeList: [{ language: 'python', code: 'app.mount("/")' }], rank: 2, score: 0.5, includes: ['docs_src/app.py'] }],
      infoSnippets: [{ pageId: 'docs/none.md', breadcrumb: '', content: 'x', contentTokens: 1, rank: 1, score: 0.9 }],
    })
    expect(ranked.map((s) => s.files)).toEqual([['docs/none.md'], ['docs/other.md', 'docs_src/app.py']])
    const score = scoreAnswer(question, ranked, 3)
    expect(score).toMatchObject({ firstRelevant: 2, codeHit5: 1, recall5: 0.5 })
    expect(score.ndcg5).toBeGreaterThan(0)
    expect(score.ndcg5).toBeLessThan(1)
  })

  it('looks for the expected code in the first five code snippets, wherever the info snippets rank', () => {
    const info = (n: number) => Array.from({ length: n }, (_, i) => ({ kind: 'info' as const, files: [`docs/info${i}.md`] }))
    const code = (text: string) => ({ kind: 'code' as const, files: ['docs/x.md'], code: text })
    const fifthCode = [...info(6), code('a'), code('b'), code('c'), code('d'), code('app.mount(y)')]
    expect(scoreAnswer(question, fifthCode, 1).codeHit5).toBe(1)
    const sixthCode = [code('a'), code('b'), code('c'), code('d'), code('e'), code('app.mount(y)')]
    expect(scoreAnswer(question, sixthCode, 1).codeHit5).toBe(0)
  })

  it('summarizes hits, MRR@10, code hits over code questions only, and latency percentiles', () => {
    const hit = scoreAnswer(question, [{ kind: 'code', files: ['docs/mount.md'], code: 'app.mount(x)' }], 10)
    const miss = scoreAnswer({ ...question, codeMustContain: undefined }, [{ kind: 'info', files: ['docs/no.md'] }], 30)
    const m = summarize([hit, miss])
    expect(m).toMatchObject({ questions: 2, hit1: 0.5, hit5: 0.5, mrr10: 0.5, codeHit5: 1, codeQuestions: 1, p50ms: 10, p95ms: 30 })
  })
})
