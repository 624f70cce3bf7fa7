/**
 * Source readers by spec type. A reader's module (and what it imports: git, a parser, an API
 * client, a browser driver) is loaded when a job of its source runs, not when a job is queued.
 * Each reader validates its own spec (zod); see types.ts for the contract.
 */
import type { SourceReader, SourceSpec } from './types.js'

type Reader = SourceReader<SourceSpec>

const READERS: Record<string, () => Promise<Reader>> = {
  git: async () => (await import('./git-reader.js')).readGitRepository,
  openapi: async () => (await import('./openapi.js')).readOpenApi,
  llmstxt: async () => (await import('./llmstxt.js')).readLlmsTxt,
  website: async () => (await import('./website.js')).readWebsite,
  confluence: async () => (await import('./confluence.js')).readConfluence,
  notion: async () => (await import('./notion.js')).readNotion,
}

/** The reader of a spec type, loaded on first use; undefined for a type no reader handles. */
export async function loadSourceReader(type: string): Promise<Reader | undefined> {
  return Object.hasOwn(READERS, type) ? READERS[type]() : undefined
}
