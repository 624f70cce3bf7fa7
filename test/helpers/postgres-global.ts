/**
 * Global setup of the PostgreSQL run of the API suites (vitest.postgres.config.ts): one server for
 * the whole run, with a template database migrated once; every app of every test then gets a
 * database of its own, made from the template (test/helpers/stores.ts).
 */
import type { TestProject } from 'vitest/node'
import { migratePostgres } from '../../src/store/postgres.js'
import { startPostgres } from './postgres.js'
import { createDatabase, TEMPLATE_DATABASE, withDatabase } from './stores.js'

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const steps: Array<() => Promise<void> | void> = []
  const teardown = async () => {
    for (const step of steps.reverse()) await step()
  }
  try {
    const { url } = await startPostgres((step) => void steps.push(step))
    await createDatabase(url, TEMPLATE_DATABASE)
    await migratePostgres(withDatabase(url, TEMPLATE_DATABASE))
    project.provide('postgresUrl', url)
  } catch (err) {
    // vitest runs no teardown of a setup that threw: the server and its directory go now.
    await teardown()
    throw err
  }
  return teardown
}
