/**
 * MCP overhead: `tools/call query-docs` over /mcp next to GET /api/v2/context for the same
 * library and question, interleaved one request at a time on one keep-alive connection each,
 * so both see the same host load. The two answers must carry the same text.
 */
import { contextPath } from './servers.js'

export interface McpOverhead {
  requests: number
  restP50Ms: number
  restP99Ms: number
  mcpP50Ms: number
  mcpP99Ms: number
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

function mcpCall(id: number, libraryId: string, query: string): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'query-docs', arguments: { libraryId, query } } }),
  }
}

export async function measureMcpOverhead(port: number, asked: Array<{ libraryId: string; question: string }>): Promise<McpOverhead> {
  const base = `http://127.0.0.1:${port}`
  const rest: number[] = []
  const mcp: number[] = []
  for (const [i, { libraryId, question }] of asked.entries()) {
    let started = performance.now()
    const restText = await (await fetch(`${base}${contextPath(libraryId, question)}`)).text()
    rest.push(performance.now() - started)
    started = performance.now()
    const answer = (await (await fetch(`${base}/mcp`, mcpCall(i, libraryId, question))).json()) as { result?: { content: Array<{ text: string }> } }
    mcp.push(performance.now() - started)
    if (answer.result?.content[0]?.text !== restText) throw new Error(`MCP and REST answers differ for ${libraryId} "${question}"`)
  }
  rest.sort((a, b) => a - b)
  mcp.sort((a, b) => a - b)
  return {
    requests: asked.length,
    restP50Ms: percentile(rest, 0.5),
    restP99Ms: percentile(rest, 0.99),
    mcpP50Ms: percentile(mcp, 0.5),
    mcpP99Ms: percentile(mcp, 0.99),
  }
}
