/**
 * A stacked bar chart drawn as SVG by Preact itself: no chart library, since the ones on npm set
 * inline styles that the dashboard's CSP refuses. Colours and sizes are SVG attributes, not
 * styles. The chart is a picture for the eye; `label` names it for screen readers, and the page
 * shows the same numbers in a table.
 */
export interface BarSeries {
  key: string
  label: string
  colour: string
}

export interface Bar {
  label: string
  values: Record<string, number>
}

const WIDTH = 960
const HEIGHT = 240
const MARGIN = { top: 12, right: 8, bottom: 28, left: 48 }

/** A round step for the axis: 1, 2 or 5 times a power of ten, giving about four gridlines. */
function axisStep(max: number): number {
  const rough = Math.max(max, 1) / 4
  const power = 10 ** Math.floor(Math.log10(rough))
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough) ?? rough
}

export function BarChart({ bars, series, label }: { bars: Bar[]; series: BarSeries[]; label: string }) {
  const totals = bars.map((bar) => series.reduce((sum, s) => sum + (bar.values[s.key] ?? 0), 0))
  const step = Math.max(1, axisStep(Math.max(0, ...totals)))
  const top = Math.max(step, Math.ceil(Math.max(0, ...totals) / step) * step)
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom
  const slot = plotWidth / Math.max(bars.length, 1)
  const barWidth = Math.max(1, slot * 0.7)
  const y = (value: number) => MARGIN.top + plotHeight - (value / top) * plotHeight
  const labelEvery = Math.ceil(bars.length / 10)
  const ticks = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step)
  return (
    <figure>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} width="100%">
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={y(tick)} y2={y(tick)} stroke="#8884" stroke-width="1" />
            <text x={MARGIN.left - 6} y={y(tick) + 4} text-anchor="end" font-size="12" fill="currentColor">
              {tick}
            </text>
          </g>
        ))}
        {bars.map((bar, i) => {
          const x = MARGIN.left + i * slot + (slot - barWidth) / 2
          let base = 0
          return (
            <g key={bar.label} data-day={bar.label} data-total={totals[i]}>
              <title>{`${bar.label}: ${totals[i]} ${totals[i] === 1 ? 'request' : 'requests'}`}</title>
              {series.map((s) => {
                const value = bar.values[s.key] ?? 0
                if (value === 0) return null
                const rect = <rect key={s.key} x={x} width={barWidth} y={y(base + value)} height={y(base) - y(base + value)} fill={s.colour} />
                base += value
                return rect
              })}
              {i % labelEvery === 0 ? (
                <text x={x + barWidth / 2} y={HEIGHT - 8} text-anchor="middle" font-size="12" fill="currentColor">
                  {bar.label.slice(5)}
                </text>
              ) : null}
            </g>
          )
        })}
      </svg>
      <figcaption>
        {series.map((s) => (
          <span key={s.key}>
            <svg width="12" height="12" aria-hidden="true">
              <rect width="12" height="12" fill={s.colour} />
            </svg>{' '}
            {s.label}{' '}
          </span>
        ))}
      </figcaption>
    </figure>
  )
}
