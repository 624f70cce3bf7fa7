/**
 * Adding a private source from a teamspace's dashboard (a signed-in member, no API key): a
 * repository of a git connection's host, a Confluence space or Notion pages, through one of the
 * teamspace's own connections, named by the member, as the teamspace's private library. The same
 * checks as an add with the teamspace's key: owners and admins, on a plan with private sources
 * (private-sources.ts); the connection's kind says which source it is.
 */
import type { Caller } from '../library/access.js'
import { LecternError } from '../errors.js'
import { submitRepository, submitSource, type Submitted } from '../jobs/submit.js'
import type { AddressGuard } from '../sources/address-guard.js'
import { confluenceSubmission } from '../sources/confluence.js'
import { notionSubmission } from '../sources/notion.js'
import type { SourceSubmission } from '../sources/types.js'
import { parseRepoUrl } from '../sources/repo-url.js'
import { hostOf, type Connection } from '../store/connections.js'
import type { Store } from '../store/index.js'
import { scopedLibraryId, teamPrivateSourceOwner, type Submitter } from './private-sources.js'
import { teamScope } from './team-connections.js'
import type { TeamAccess } from './teamspaces.js'

export interface TeamSourceInput {
  connection: string
  /** Git: the repository, on the connection's host. */
  repoUrl?: string
  /** Confluence: the space. */
  spaceKey?: string
  /** Confluence: some pages of the space (all when absent); Notion: the pages, required. */
  pageIds?: string[]
  title?: string
  description?: string
}

async function submissionOf(store: Store, access: TeamAccess, input: TeamSourceInput): Promise<SourceSubmission> {
  const scope = teamScope(access)
  const connection = await store.connections.get(scope, input.connection)
  if (!connection) throw new LecternError('validation_error', `This teamspace has no connection named "${input.connection}".`)
  const { title, description, pageIds } = input
  if (connection.kind === 'confluence') {
    if (!input.spaceKey) throw new LecternError('validation_error', 'A Confluence source needs its space key.')
    return await confluenceSubmission(store, scope, { connection: connection.name, spaceKey: input.spaceKey, pageIds, title, description })
  }
  if (connection.kind === 'notion') {
    if (!pageIds?.length) throw new LecternError('validation_error', 'A Notion source needs the IDs of its pages.')
    return await notionSubmission(store, scope, { connection: connection.name, pageIds, title, description })
  }
  throw new LecternError('validation_error', `"${connection.name}" is a git connection: give the repository's URL (repoUrl).`)
}

/** `caller`: the signed-in member; `guard`: cloud mode's address guard. */
export async function addTeamSource(store: Store, access: TeamAccess, input: TeamSourceInput, caller: Caller, guard: AddressGuard | undefined): Promise<Submitted> {
  const owner = teamPrivateSourceOwner(access.team, access.role)
  const connection = await store.connections.get(teamScope(access), input.connection)
  if (connection?.kind === 'git') return addTeamRepository(store, { caller, mode: 'cloud', team: access }, connection, input, guard)
  if (input.repoUrl !== undefined) throw new LecternError('validation_error', `"${input.connection}" is not a git connection: a repository URL goes with a git connection of its host.`)
  const submission = await submissionOf(store, access, input)
  return await submitSource(store, { ...submission, libraryId: scopedLibraryId(submission.libraryId, owner.teamPk) }, owner)
}

/** A repository of the connection's host, cloned with its token, as the teamspace's private library. */
async function addTeamRepository(store: Store, submitter: Submitter, connection: Connection, input: TeamSourceInput, guard: AddressGuard | undefined): Promise<Submitted> {
  if (!input.repoUrl) throw new LecternError('validation_error', `"${connection.name}" is a git connection: give the repository's URL (repoUrl).`)
  const host = parseRepoUrl(input.repoUrl, undefined, { httpOnly: guard !== undefined }).host
  if (host !== hostOf(connection.baseUrl)) {
    throw new LecternError('validation_error', `The connection "${connection.name}" is for ${hostOf(connection.baseUrl)}, and this repository is on ${host}: add a git connection for ${host} first.`)
  }
  return submitRepository(store, { docsRepoUrl: input.repoUrl, private: true }, guard, submitter)
}
