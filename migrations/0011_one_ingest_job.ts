import type { Knex } from 'knex'

/**
 * One ingest job for every source: the job kinds `ingest-git` and `ingest-source` become
 * `ingest`, so jobs queued before an upgrade still run after it. A git job's payload
 * (`repoUrl`, `repoKind`, `ref`, `skipVersionFiltering`, `force`) becomes the git reader's spec;
 * `generateDocs`, which the git job read from its library at run time, is taken from the
 * library's options. Finished jobs are rewritten too, so the history names one kind.
 */
export async function up(knex: Knex): Promise<void> {
  const gitJobs = (await knex('jobs')
    .leftJoin('libraries', 'libraries.pk', 'jobs.library_pk')
    .where('jobs.kind', 'ingest-git')
    .select('jobs.pk', 'jobs.payload', 'libraries.options')) as Array<{ pk: number; payload: string; options: string | null }>
  for (const job of gitJobs) {
    const old = parseObject(job.payload)
    const options = parseObject(job.options ?? '{}')
    const spec = {
      type: 'git',
      url: old.repoUrl,
      sourceKind: old.repoKind,
      ...(typeof old.ref === 'string' ? { ref: old.ref } : {}),
      skipVersionFiltering: old.skipVersionFiltering === true,
      generateDocs: options.generateDocs === true,
    }
    await knex('jobs')
      .where('pk', job.pk)
      .update({ kind: 'ingest', payload: JSON.stringify({ spec, force: old.force === true }) })
  }
  await knex('jobs').where('kind', 'ingest-source').update({ kind: 'ingest' })
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

export async function down(): Promise<void> {
  throw new Error('forward-only migration')
}
