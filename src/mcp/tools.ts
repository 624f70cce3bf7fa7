/**
 * Lectern's MCP tools, the same for every transport (streamable HTTP in server/, stdio in the
 * `mcp` command): `resolve-library-id`, `query-docs`, and `get-library-docs` (the older name of
 * query-docs that older clients still call). Every failure comes back as a readable tool result
 * with `isError: true`, never as a protocol error or an empty text.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import type { Caller } from '../library/access.js'
import { isLecternError, type LecternError } from '../errors.js'
import type { Runtime } from '../runtime.js'
import { DEFAULT_TOKENS, MAX_TOKENS, MIN_TOKENS } from '../search/budget.js'
import type { LibrarySummary } from '../search/libraries.js'
import { renderText } from '../index/render.js'
import type { UsageTransport } from '../store/usage.js'

export interface McpCaller {
  /** Who asks: decides which libraries exist for them and what failures say (library/visibility.ts, library/access.ts). */
  caller: Caller
  transport: UsageTransport
  /** Client kind for usage counts. */
  client: string
  /** Who asks and from where, for the library metrics (src/usage/recorder.ts Asked). */
  user?: string
  country?: string | string[]
  /** Takes one unit of the caller's rate limit; returns a refusal message when over it. */
  takeRateLimit?: () => Promise<string | undefined>
  /** Told of a refusal that kept a library from the caller (`blockedLibrary`), for the audit log. */
  onRefused?: (err: LecternError) => void
}

export const SERVER_INFO = { name: 'lectern', version: '0.1.0' }

const RESOLVE_DESCRIPTION = `Finds the Lectern library ID for a library, package or product name. Call this first, before query-docs, unless the user already gave an ID such as /owner/repo or /owner/repo/version.

Results come best match first. Each lists the library ID, title, description, number of code snippets, source reputation and available versions.

How to pick: prefer the exact name match; among similar names, the one whose description fits the task, then the one with more snippets. If the user names a version and the library lists it, use /owner/repo/version. If nothing fits, say so and suggest another name rather than guessing. Call this at most 3 times per question.`

const QUERY_DESCRIPTION = `Returns current documentation and code examples of a library for one question, from this Lectern install.

Needs the exact library ID from resolve-library-id (or one the user gave, like /owner/repo or /owner/repo/version). Ask about one concept per call, in plain words, e.g. "register a route with a JSON schema for the body". Call this at most 3 times per question.`

function formatLibrary(library: LibrarySummary): string {
  const reputation = library.trustScore >= 7 ? 'High' : library.trustScore >= 4 ? 'Medium' : 'Low'
  const lines = [
    `- Title: ${library.title}`,
    `- Library ID: ${library.id}`,
    `- Description: ${library.description || '(none)'}`,
    `- Code Snippets: ${library.totalSnippets}`,
    `- Source Reputation: ${reputation}`,
  ]
  if (library.failure) {
    lines.push(`- State: error (not searchable: processing failed with ${library.failure.error}: ${library.failure.message})`)
  } else if (library.state !== 'finalized') {
    lines.push(`- State: ${library.state} (not searchable yet)`)
  }
  if (library.versions.length > 0) lines.push(`- Versions: ${library.versions.join(', ')}`)
  return lines.join('\n')
}

const text = (body: string): CallToolResult => ({ content: [{ type: 'text', text: body }] })
const failure = (body: string): CallToolResult => ({ content: [{ type: 'text', text: body }], isError: true })

/** A Lectern error as a sentence a model can act on. */
function describeError(err: LecternError): string {
  switch (err.code) {
    case 'library_redirected':
      return `${err.message} Call query-docs again with libraryId "${String(err.extra.redirectUrl)}".`
    case 'library_not_found':
    case 'invalid_library_id':
      return `${err.message} Use resolve-library-id to find the right library ID.`
    case 'library_not_finalized':
      return `${err.message} Its documentation is not searchable yet.`
    case 'processing_failed':
    case 'source_unreachable':
    case 'timeout':
      return `${err.message} Its documentation is not searchable.`
    default:
      return err.message
  }
}

/**
 * Any number: the range and whole-number rule is checkTokenBudget's (src/search/budget.ts), the
 * same as REST's, so 1e309 (Infinity once parsed) or 100 is refused as a tool error saying so.
 */
const tokensArgument = z.number().optional().describe(`Token budget, a whole number from ${MIN_TOKENS} to ${MAX_TOKENS} (default ${DEFAULT_TOKENS}).`)

/**
 * An MCP server with Lectern's tools. `caller` is read at each tool call, so a pooled server
 * (see server/routes/mcp.ts) can serve one request after another for different callers.
 */
export function createMcpServer(runtime: Runtime, caller: McpCaller | { current: McpCaller }): McpServer {
  const current = (): McpCaller => ('current' in caller ? caller.current : caller)
  const server = new McpServer(SERVER_INFO, {
    instructions: 'Lectern serves current library documentation. Use resolve-library-id to find a library ID, then query-docs with a specific question.',
  })

  const guarded = async (work: () => Promise<CallToolResult> | CallToolResult): Promise<CallToolResult> => {
    const refusal = await current().takeRateLimit?.()
    if (refusal) return failure(refusal)
    try {
      return await work()
    } catch (err) {
      if (isLecternError(err)) {
        current().onRefused?.(err)
        return failure(describeError(err))
      }
      return failure('Lectern could not answer because of an internal error; try again in a moment.')
    }
  }

  const queryDocs = (libraryId: string, query: string, tokens = DEFAULT_TOKENS) =>
    guarded(async () => {
      const answer = await runtime.retriever.getContext({ libraryId, query, tokens, caller: current().caller })
      const { client, transport, user, country } = current()
      runtime.usage.record(answer.library.pk, client, transport, new Date(), { user, country, question: query })
      return text(renderText(answer.snippets, answer.library.rules))
    })

  server.registerTool(
    'resolve-library-id',
    {
      title: 'Resolve library ID',
      description: RESOLVE_DESCRIPTION,
      inputSchema: {
        libraryName: z.string().min(1).max(500).describe('The library or package name, e.g. "fastify" or "Next.js".'),
        query: z.string().max(500).optional().describe('What the user wants to do; it ranks libraries with similar names.'),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ libraryName, query }) =>
      guarded(async () => {
        const results = await runtime.catalogue.search(libraryName, query, { caller: current().caller })
        return text(`Available libraries:\n\n${results.map(formatLibrary).join('\n----------\n')}`)
      }),
  )

  server.registerTool(
    'query-docs',
    {
      title: 'Query documentation',
      description: QUERY_DESCRIPTION,
      inputSchema: {
        libraryId: z.string().min(1).max(500).describe('Exact library ID, e.g. "/fastify/fastify" or "/vercel/next.js/v14.3.0".'),
        // No min(1): a question without words gets the readable result every path gives (Retriever.getContext), not a protocol error.
        query: z.string().max(500).describe('One specific question about the library, in plain words.'),
        tokens: tokensArgument,
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ libraryId, query, tokens }) => queryDocs(libraryId, query, tokens),
  )

  server.registerTool(
    'get-library-docs',
    {
      title: 'Get library docs (older name of query-docs)',
      description: `The older name of query-docs, kept for clients that still call it. ${QUERY_DESCRIPTION}`,
      inputSchema: {
        context7CompatibleLibraryID: z.string().min(1).max(500).describe('Exact library ID, e.g. "/fastify/fastify".'),
        topic: z.string().max(500).optional().describe('What to look up, e.g. "hooks" or "routing".'),
        tokens: tokensArgument,
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ context7CompatibleLibraryID, topic, tokens }) =>
      queryDocs(context7CompatibleLibraryID, topic?.trim() || 'overview, installation and getting started', tokens),
  )

  return server
}
