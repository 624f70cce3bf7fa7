/**
 * Asking a library a question, as an AI tool would: the `txt` answer exactly as tools receive
 * it, and the JSON answer as a ranked list with each snippet's source link.
 */
import { useState } from 'preact/hooks'
import { api, apiText, query } from '../api'
import { ErrorNote, formatNumber } from '../components'
import { useAction } from '../hooks'

interface RankedSnippet {
  rank: number
  score: number
  codeTitle?: string
  codeId?: string
  codeLanguage?: string
  codeTokens?: number
  pageId?: string
  breadcrumb?: string
  contentTokens?: number
}

interface Answer {
  txt: string
  ranked: RankedSnippet[]
}

const isLink = (source: string | undefined) => !!source && /^https?:\/\//.test(source)

export function TryIt({ libraryId }: { libraryId: string }) {
  const [view, setView] = useState<'txt' | 'json'>('txt')
  const [answer, setAnswer] = useState<Answer>()
  const ask = useAction(async (question: string, tokens: string) => {
    setAnswer(undefined)
    const params = { libraryId, query: question, tokens: tokens || undefined }
    const [txt, json] = await Promise.all([
      apiText(`/api/v2/context${query({ ...params, type: 'txt' })}`),
      api<{ codeSnippets: RankedSnippet[]; infoSnippets: RankedSnippet[] }>('GET', `/api/v2/context${query({ ...params, type: 'json' })}`),
    ])
    setAnswer({ txt, ranked: [...json.codeSnippets, ...json.infoSnippets].sort((a, b) => a.rank - b.rank) })
  })
  return (
    <section aria-labelledby="try-it">
      <h2 id="try-it">Try it</h2>
      <form
        role="search"
        onSubmit={(event) => {
          event.preventDefault()
          const data = new FormData(event.currentTarget)
          void ask.run(String(data.get('question')), String(data.get('tokens') ?? ''))
        }}
      >
        <fieldset role="group">
          <input name="question" aria-label="Question" placeholder="How do I …?" required />
          <input name="tokens" aria-label="Token budget" type="number" min={500} placeholder="tokens" class="tokens" />
          <button type="submit" aria-busy={ask.busy} disabled={ask.busy}>
            Ask
          </button>
        </fieldset>
      </form>
      <ErrorNote error={ask.error} />
      {answer ? (
        <>
          <div role="tablist" class="tabs">
            <button role="tab" aria-selected={view === 'txt'} class={view === 'txt' ? '' : 'secondary outline'} onClick={() => setView('txt')}>
              As AI tools get it (txt)
            </button>
            <button role="tab" aria-selected={view === 'json'} class={view === 'json' ? '' : 'secondary outline'} onClick={() => setView('json')}>
              Ranked snippets (JSON)
            </button>
          </div>
          {view === 'txt' ? (
            <pre class="answer" data-testid="answer-txt">
              {answer.txt}
            </pre>
          ) : (
            <div class="overflow-auto">
            <table class="striped" data-testid="answer-json">
              <thead>
                <tr>
                  <th scope="col">Rank</th>
                  <th scope="col">Snippet</th>
                  <th scope="col" class="number">
                    Tokens
                  </th>
                  <th scope="col" class="number">
                    Score
                  </th>
                </tr>
              </thead>
              <tbody>
                {answer.ranked.map((s) => {
                  const source = s.codeId ?? s.pageId
                  return (
                    <tr key={s.rank}>
                      <td>{s.rank}</td>
                      <td>
                        <div>{s.codeTitle ?? s.breadcrumb}</div>
                        <small class="muted">
                          {s.codeTitle ? `code (${s.codeLanguage})` : 'info'} ·{' '}
                          {isLink(source) ? (
                            <a href={source} target="_blank" rel="noreferrer noopener">
                              {source}
                            </a>
                          ) : (
                            source
                          )}
                        </small>
                      </td>
                      <td class="number">{formatNumber(s.codeTokens ?? s.contentTokens ?? 0)}</td>
                      <td class="number">{s.score.toFixed(3)}</td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
            </div>
          )}
        </>
      ) : null}
    </section>
  )
}
