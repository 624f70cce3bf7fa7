/**
 * Source readers by spec type. Each reader validates its own spec (zod) and fetches through
 * the shared HTTP client; see types.ts for the contract.
 */
import { readConfluence } from './confluence.js'
import { readLlmsTxt } from './llmstxt.js'
import { readNotion } from './notion.js'
import { readOpenApi } from './openapi.js'
import type { SourceReader } from './types.js'
import { readWebsite } from './website.js'

export type SourceSpec = { type: string } & Record<string, unknown>

export const SOURCE_READERS: Record<string, SourceReader<SourceSpec>> = {}

SOURCE_READERS.openapi = readOpenApi
SOURCE_READERS.llmstxt = readLlmsTxt
SOURCE_READERS.website = readWebsite
SOURCE_READERS.confluence = readConfluence
SOURCE_READERS.notion = readNotion
