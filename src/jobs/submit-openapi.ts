/**
 * Submitting an OpenAPI spec, by URL or as an uploaded file; shared by the REST routes and
 * `lectern add openapi`.
 *
 * Library ID rule, so the same spec always lands on the same library:
 * - by URL: `/docs/<slug of host + path without its extension>`, e.g.
 *   `https://api.example.com/v3/openapi.json` -> `/docs/api.example.com-v3-openapi`;
 * - by upload: `/docs/<slug of the library title, else of the file name without extension>`.
 *
 * In cloud mode an uploaded file is private by nature: uploaded with a teamspace's key it belongs
 * to that teamspace, and its slug carries the teamspace (src/tenancy/private-sources.ts).
 */
import path from 'node:path'
import { LecternError } from '../errors.js'
import { slugifySegment } from '../library/id.js'
import type { OpenApiSpec } from '../sources/openapi.js'
import { parseSourceUrl } from '../sources/source-url.js'
import { removeOtherUploads, saveUpload, uploadExtension } from '../sources/uploads.js'
import type { Store } from '../store/index.js'
import { placeSubmission, type Submitter } from '../tenancy/private-sources.js'
import { failedVersionOf, submitSource, type Submitted } from './submit.js'

export function openApiUrlLibraryId(url: string): string {
  const parsed = parseSourceUrl(url, 'The OpenAPI URL')
  const withoutExtension = parsed.pathname.replace(/\.[^./]+$/, '')
  return `/docs/${slugifySegment(`${parsed.host}${withoutExtension}`)}`
}

export async function submitOpenApiUrl(store: Store, input: { url: string; title?: string; description?: string; force?: boolean }, submitter?: Submitter): Promise<Submitted> {
  const { id: libraryId } = await placeSubmission(store.teams, submitter, openApiUrlLibraryId(input.url), false)
  const spec: OpenApiSpec = { type: 'openapi', url: input.url, ...named(input) }
  return await submitSource(store, {
    libraryId,
    title: input.title || libraryId.slice('/docs/'.length),
    description: input.description,
    sourceKind: 'openapi',
    sourceUrl: input.url,
    spec,
    force: input.force,
  })
}

export interface OpenApiUpload {
  data: Buffer
  fileName: string
  title?: string
  description?: string
  force?: boolean
}

export async function submitOpenApiUpload(store: Store, input: OpenApiUpload, submitter?: Submitter): Promise<Submitted> {
  const baseSlug = slugifySegment(input.title?.trim() || path.basename(input.fileName).replace(/\.[^.]+$/, ''))
  const isPrivate = submitter?.mode === 'cloud'
  const { id: libraryId, owner } = await placeSubmission(store.teams, submitter, `/docs/${baseSlug}`, isPrivate)
  const slug = libraryId.slice('/docs/'.length)
  // Saving replaces the file an existing library refreshes from, so refuse first what submitSource would.
  await refuseUnlessReplaceable(store, libraryId, input.force ?? false, owner !== undefined)
  const file = await saveUpload(store, slug, uploadExtension(input.fileName, input.data), input.data)
  const submitted = await submitSource(store, {
    libraryId,
    title: input.title || baseSlug,
    description: input.description,
    sourceKind: 'openapi',
    sourceUrl: `upload:${file}`,
    spec: { type: 'openapi', file, ...named(input) } satisfies OpenApiSpec,
    isPrivate,
    force: input.force,
  }, owner)
  await removeOtherUploads(store, slug, file)
  return submitted
}

function named(input: { title?: string; description?: string }): Pick<OpenApiSpec, 'title' | 'description'> {
  return { ...(input.title ? { title: input.title } : {}), ...(input.description ? { description: input.description } : {}) }
}

async function refuseUnlessReplaceable(store: Store, libraryId: string, force: boolean, ownedByTeam: boolean): Promise<void> {
  const existing = await store.libraries.byId(libraryId)
  if (!existing) {
    // A library renamed away from this ID still refreshes from the file saved under its old slug.
    const moved = await store.libraries.redirectOf(libraryId)
    const renamed = moved === undefined ? undefined : await store.libraries.byId(moved)
    const slug = libraryId.slice('/docs/'.length)
    if (renamed?.sourceUrl.startsWith(`upload:${slug}.`)) {
      throw new LecternError('library_exists', `Library ${libraryId} was renamed to ${renamed.id}, which still refreshes from the file uploaded as ${slug}; refresh ${renamed.id}, or upload this spec under another title.`)
    }
    return
  }
  if (existing.sourceKind === 'openapi' && await failedVersionOf(store, existing)) return
  if (!force) throw new LecternError(ownedByTeam ? 'duplicate_repo' : 'library_exists', `Library ${libraryId} was already added. Refresh it, or upload it again with force.`)
  if (existing.sourceKind !== 'openapi') throw new LecternError('library_exists', `Library ${libraryId} already exists with another source (${existing.sourceKind}).`)
  const version = await store.libraries.version(existing.pk, '')
  const active = version && await store.jobs.activeForVersion(version.pk)
  if (active) throw new LecternError('library_busy', `Library ${libraryId} is being processed (job ${active.pk}); wait for it to end.`)
}
