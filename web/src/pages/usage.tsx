import { useState } from 'preact/hooks'
import { api, query } from '../api'
import { BarChart, type BarSeries } from '../components/bar-chart'
import { Empty, ErrorNote, formatNumber } from '../components'
import { useLoad } from '../hooks'
import type { UsageCounts, UsageReport } from '../types'

const WINDOWS = [7, 30, 90] as const

const TRANSPORTS: BarSeries[] = [
  { key: 'rest-txt', label: 'REST (text)', colour: '#2563eb' },
  { key: 'rest-json', label: 'REST (JSON)', colour: '#60a5fa' },
  { key: 'mcp-http', label: 'MCP (HTTP)', colour: '#16a34a' },
  { key: 'mcp-stdio', label: 'MCP (stdio)', colour: '#86efac' },
]

const clientsOf = (counts: UsageCounts): string =>
  Object.entries(counts)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([client, n]) => `${client} ${formatNumber(n)}`)
    .join(', ')

export function UsagePage() {
  const [days, setDays] = useState<(typeof WINDOWS)[number]>(7)
  const report = useLoad(() => api<UsageReport>('GET', `/api/usage${query({ days })}`), [days], 30_000)
  const data = report.data
  return (
    <section>
      <h1>Usage</h1>
      <p>Questions asked of each library over REST and MCP, counted per day (UTC) and by the client that asked.</p>
      <fieldset role="group" aria-label="Period">
        {WINDOWS.map((n) => (
          <button key={n} class={n === days ? '' : 'secondary outline'} aria-pressed={n === days} onClick={() => setDays(n)}>
            Last {n} days
          </button>
        ))}
      </fieldset>
      <ErrorNote error={report.error} />
      {!data ? <p aria-busy="true">Loading…</p> : null}
      {data ? (
        <>
          <p role="status" aria-label="Total requests">
            <strong>{formatNumber(data.totals.requests)}</strong> {data.totals.requests === 1 ? 'request' : 'requests'} from {data.from} to {data.to}
            {data.totals.requests > 0 ? ` (${TRANSPORTS.filter((t) => data.totals.byTransport[t.key]).map((t) => `${t.label} ${formatNumber(data.totals.byTransport[t.key]!)}`).join(', ')})` : ''}
          </p>
          <BarChart
            label={`Requests per day, last ${data.days} days`}
            series={TRANSPORTS}
            bars={data.byDay.map((d) => ({ label: d.day, values: d.byTransport }))}
          />
          {data.byLibrary.length === 0 ? (
            <Empty>
              No requests in these {data.days} days. Connect an AI tool over MCP or call <code>/api/v2/context</code>; counts show here within seconds.
            </Empty>
          ) : (
            <table class="striped">
              <caption>Requests per library, last {data.days} days</caption>
              <thead>
                <tr>
                  <th scope="col">Library</th>
                  <th scope="col" class="number">
                    Requests
                  </th>
                  {TRANSPORTS.map((t) => (
                    <th key={t.key} scope="col" class="number">
                      {t.label}
                    </th>
                  ))}
                  <th scope="col">Clients</th>
                </tr>
              </thead>
              <tbody>
                {data.byLibrary.map((library) => (
                  <tr key={library.libraryId}>
                    <th scope="row">
                      <a href={`/libraries${library.libraryId}`}>{library.libraryId}</a>
                    </th>
                    <td class="number">{formatNumber(library.requests)}</td>
                    {TRANSPORTS.map((t) => (
                      <td key={t.key} class="number">
                        {formatNumber(library.byTransport[t.key] ?? 0)}
                      </td>
                    ))}
                    <td>{clientsOf(library.byClient)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      ) : null}
    </section>
  )
}
