/**
 * One of the teamspace's libraries' usage (GET /api/v2/libs/metrics with the member's session):
 * daily requests by surface and the MCP clients' daily unique users as charts (the own-SVG
 * BarChart: chart libraries set inline styles the CSP refuses), the most-asked topics and the
 * countries asked from as tables, for the last 7, 30 or 90 days (UTC).
 */
import { useState } from 'preact/hooks'
import { api, query } from '../../api'
import { BarChart, type BarSeries } from '../../components/bar-chart'
import { Empty, ErrorNote, formatNumber } from '../../components'
import { useLoad } from '../../hooks'

const WINDOWS = [7, 30, 90] as const

const SURFACES: BarSeries[] = [
  { key: 'mcp', label: 'MCP', colour: '#16a34a' },
  { key: 'txt', label: 'REST', colour: '#2563eb' },
  { key: 'cli', label: 'CLI', colour: '#d97706' },
  { key: 'page', label: 'Web pages', colour: '#9333ea' },
]

const CLIENT_COLOURS = ['#0891b2', '#db2777', '#65a30d', '#7c3aed', '#ea580c', '#0d9488', '#4b5563']

type Surfaces = Record<'page' | 'txt' | 'mcp' | 'cli', number>

interface LibraryMetrics {
  total: Surfaces
  daily: Array<{ date: string; total: number } & Surfaces>
  mcpClients: { dailyData: Array<{ date: string; uniqueUsersByClient: Record<string, number>; totalUniqueUsers: number }> }
  topics: Array<{ topic: string; count: number }>
  countries: Array<{ country: string; count: number }>
}

const DAY_MS = 86_400_000

/** Every UTC day of the window, oldest first: the API lists only days that had requests. */
function daysOf(days: number, now = Date.now()): string[] {
  return Array.from({ length: days }, (_, i) => new Date(now - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10))
}

export function LibraryMetricsPage({ teamId, libraryId }: { teamId: number; libraryId: string }) {
  const [days, setDays] = useState<(typeof WINDOWS)[number]>(7)
  const metrics = useLoad(() => api<LibraryMetrics>('GET', `/api/v2/libs/metrics${query({ libraryId, days })}`), [libraryId, days], 30_000)
  const data = metrics.data
  const window = daysOf(days)
  const byDay = new Map(data?.daily.map((d) => [d.date, d]))
  const usersByDay = new Map(data?.mcpClients.dailyData.map((d) => [d.date, d]))
  const clients = [...new Set(data?.mcpClients.dailyData.flatMap((d) => Object.keys(d.uniqueUsersByClient)))].sort()
  const clientSeries = clients.map((client, i) => ({ key: client, label: client, colour: CLIENT_COLOURS[i % CLIENT_COLOURS.length]! }))
  const requests = data ? SURFACES.reduce((sum, s) => sum + data.daily.reduce((n, d) => n + d[s.key as keyof Surfaces], 0), 0) : 0
  return (
    <section>
      <p>
        <a href={`/teams/${teamId}/libraries`}>← Libraries</a>
      </p>
      <h1>{libraryId}</h1>
      <fieldset role="group" aria-label="Period">
        {WINDOWS.map((n) => (
          <button key={n} class={n === days ? '' : 'secondary outline'} aria-pressed={n === days} onClick={() => setDays(n)}>
            Last {n} days
          </button>
        ))}
      </fieldset>
      <ErrorNote error={metrics.error} />
      {!data && !metrics.error ? <p aria-busy="true">Loading…</p> : null}
      {data ? (
        <>
          <p role="status" aria-label="Requests in the period">
            <strong>{formatNumber(requests)}</strong> {requests === 1 ? 'request' : 'requests'} in the last {days} days (
            {SURFACES.map((s) => `${s.label} ${formatNumber(data.daily.reduce((n, d) => n + d[s.key as keyof Surfaces], 0))}`).join(', ')})
          </p>
          <h2>Requests per day</h2>
          <BarChart label={`Requests per day by surface, last ${days} days`} series={SURFACES} bars={window.map((day) => ({ label: day, values: byDay.get(day) ?? {} }))} />
          <h2>MCP users per day</h2>
          {clients.length === 0 ? (
            <Empty>No MCP client asked about this library in these {days} days.</Empty>
          ) : (
            <>
              <BarChart
                label={`Unique MCP users per day by client, last ${days} days`}
                series={clientSeries}
                bars={window.map((day) => ({ label: day, values: usersByDay.get(day)?.uniqueUsersByClient ?? {} }))}
              />
              <p>
                Unique users across clients:{' '}
                {data.mcpClients.dailyData.map((d) => `${d.date.slice(5)} ${formatNumber(d.totalUniqueUsers)}`).join(', ')}
              </p>
            </>
          )}
          <div class="grid">
            <CountTable caption="Topics asked" column="Topic" rows={data.topics.slice(0, 20).map((t) => [t.topic, t.count])} empty="No questions yet." />
            <CountTable caption="Countries" column="Country" rows={data.countries.map((c) => [c.country, c.count])} empty="No requests yet." />
          </div>
        </>
      ) : null}
    </section>
  )
}

function CountTable({ caption, column, rows, empty }: { caption: string; column: string; rows: Array<[string, number]>; empty: string }) {
  const top = Math.max(1, ...rows.map(([, n]) => n))
  return (
    <div>
      <h2>{caption}</h2>
      {rows.length === 0 ? (
        <Empty>{empty}</Empty>
      ) : (
        <table class="striped" aria-label={caption}>
          <thead>
            <tr>
              <th scope="col">{column}</th>
              <th scope="col" class="number">
                Requests
              </th>
              <th scope="col">
                <span class="visually-hidden">Share</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([name, count]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td class="number">{formatNumber(count)}</td>
                <td>
                  <progress value={count} max={top} aria-label={`${name}: ${count}`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}
