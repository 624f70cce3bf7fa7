/**
 * The job kinds and the payload of the ingest job. Cheap to import on purpose: queuing a job
 * (`lectern add`, `refresh`, `versions add`) loads none of the modules that run it; those are
 * imported by handlers.ts when a worker runs its first job, and a source reader when a job of
 * its source runs (sources/registry.ts).
 */
import { z } from 'zod'

/** Reads a library version from its source (any source reader) and builds its new snippet set. */
export const INGEST_JOB = 'ingest'
/** Re-embeds a live set whose vector index was missing or damaged at start-up. */
export const REBUILD_VECTORS_JOB = 'rebuild-vectors'
/** Re-embeds a live set with the embedding provider the settings now name. */
export const REEMBED_JOB = 'reembed'
/** Builds a library version from an airgap bundle. */
export const IMPORT_JOB = 'import'

export const ingestJobPayload = z.object({
  /** The source reader's spec: `type` names the reader. */
  spec: z.object({ type: z.string() }).passthrough(),
  /** Re-ingest even when the source has not changed. */
  force: z.boolean().optional(),
})

export type IngestJobPayload = z.infer<typeof ingestJobPayload>
