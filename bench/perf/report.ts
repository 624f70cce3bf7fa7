/** The summary table: one row per figure, with its target and verdict where the brief sets one. */
export interface Row {
  metric: string
  value: string
  target: string
  result: string
}

export function row(metric: string, value: string, target = '', pass?: boolean): Row {
  return { metric, value, target, result: pass === undefined ? '' : pass ? 'PASS' : 'FAIL' }
}

export function markdownTable(rows: Row[]): string {
  const cells = [['Metric', 'Value', 'Target', 'Result'], ...rows.map((r) => [r.metric, r.value, r.target, r.result])]
  const widths = cells[0].map((_, c) => Math.max(...cells.map((line) => line[c].length)))
  const line = (values: string[]) => `| ${values.map((v, c) => v.padEnd(widths[c])).join(' | ')} |`
  return [line(cells[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.slice(1).map(line)].join('\n')
}

export const int = (n: number): string => Math.round(n).toLocaleString('en-US')
/** autocannon's latency histogram holds whole milliseconds, so 0 means under one. */
export const latency = (n: number): string => (n < 1 ? '<1 ms' : `${Math.round(n)} ms`)
export const seconds = (milliseconds: number): string => `${(milliseconds / 1000).toFixed(1)} s`
export const us = (n: number): string => `${n.toFixed(n < 10 ? 1 : 0)} µs`

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}
