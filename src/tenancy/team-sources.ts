/**
 * Adding a Confluence space or Notion pages from a teamspace's dashboard (a signed-in member, no
 * API key): through one of the teamspace's own connections, named by the member, as the
 * teamspace's private library. The same checks as an add with the teamspace's key: owners and
 * admins, on a plan with private sources (private-sources.ts); the connection's kind says which
 * source it is.
 */
import { LecternError } from '../errors.js'
import { submitSource, type Submitted } from '../jobs/submit.js'
import { confluenceSubmission } from '../sources/confluence.js'
import { notionSubmission } from '../sources/notion.js'
import type { SourceSubmission } from '../sources/types.js'
import type { Store } from '../store/index.js'
import { scopedLibraryId, teamPrivateSourceOwner } from './private-sources.js'
import { teamScope } from './team-connections.js'
import type { TeamAccess } from './teamspaces.js'

export interface TeamSourceInput {
  connection: string
  /** Confluence: the space. */
  spaceKey?: string
  /** Confluence: some pages of the space (all when absent); Notion: the pages, required. */
  pageIds?: string[]
  title?: string
  description?: string
}

function submissionOf(store: Store, access: TeamAccess, input: TeamSourceInput): SourceSubmission {
  const scope = teamScope(access)
  const connection = store.connections.get(scope, input.connection)
  if (!connection) throw new LecternError('validation_error', `This teamspace has no connection named "${input.connection}".`)
  const { title, description, pageIds } = input
  if (connection.kind === 'confluence') {
    if (!input.spaceKey) throw new LecternError('validation_error', 'A Confluence source needs its space key.')
    return confluenceSubmission(store, scope, { connection: connection.name, spaceKey: input.spaceKey, pageIds, title, description })
  }
  if (connection.kind === 'notion') {
    if (!pageIds?.length) throw new LecternError('validation_error', 'A Notion source needs the IDs of its pages.')
    return notionSubmission(store, scope, { connection: connection.name, pageIds, title, description })
  }
  throw new LecternError(
    'validation_error',
    `"${connection.name}" is a git connection: add a repository of its host with an API key of the teamspace (POST /api/v2/add/repo/git), which clones it with the connection's token.`,
  )
}

export function addTeamSource(store: Store, access: TeamAccess, input: TeamSourceInput): Submitted {
  const owner = teamPrivateSourceOwner(access.team, access.role)
  const submission = submissionOf(store, access, input)
  return submitSource(store, { ...submission, libraryId: scopedLibraryId(submission.libraryId, owner.teamPk) }, owner)
}
