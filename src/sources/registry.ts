/**
 * Source readers by spec type. Each reader validates its own spec (zod) and fetches through
 * the shared HTTP client; see types.ts for the contract.
 */
import type { SourceReader } from './types.js'

export type SourceSpec = { type: string } & Record<string, unknown>

export const SOURCE_READERS: Record<string, SourceReader<SourceSpec>> = {}
