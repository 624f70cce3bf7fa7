/**
 * A teamspace's pk is never reused: a teamspace made after the newest one was deleted gets a new
 * pk, and so team-scoped library IDs (`/docs/spec--t9`) never name a deleted teamspace's again.
 * Over HTTP, and on a data directory upgraded from before the rule (migration 0019), whose rows
 * referencing teams all survive the table's rebuild.
 */
import fs from 'node:fs'
import Database from 'better-sqlite3'
import knexFactory from 'knex'
import { describe, expect, it } from 'vitest'
import { MIGRATIONS, sourceOf } from '../../migrations/index.js'
import { dataPaths } from '../../src/install/paths.js'
import { openStore, sqliteOf } from '../../src/store/index.js'
import { buildTestApp } from '../helpers/app.js'
import { signIn } from '../helpers/session.js'
import { tmpDir } from '../helpers/tmp.js'

describe('teamspace pks', () => {
  it('are not reused after the newest teamspace is deleted', async () => {
    const app = await buildTestApp({ mode: 'cloud', startWorker: false })
    const cookies = await signIn(app, 'member', 'owner@example.com')
    // Creating a teamspace takes a pro personal plan, which the operator sets.
    const { store } = app.runtime
    await store.teams.setPlan((await store.teams.personalTeam((await store.users.byEmail('owner@example.com'))!.id)).id, 'pro')
    const create = async (name: string) => {
      const res = await app.inject({ method: 'POST', url: '/api/teams', cookies, payload: { name } })
      expect(res.statusCode, res.body).toBe(201)
      return (res.json() as { id: number }).id
    }
    const first = await create('Alpha')
    const deleted = await app.inject({ method: 'DELETE', url: `/api/teams/${first}`, cookies })
    expect(deleted.statusCode, deleted.body).toBe(200)
    const second = await create('Bravo')
    expect(second).toBeGreaterThan(first)
    expect((await app.inject({ url: `/api/teams/${first}`, cookies })).statusCode).toBe(404)
  })

  it('are not reused on a data directory upgraded from before the rule, whose references to teams all survive', async () => {
    const dataDir = await tmpDir('lectern-data-') // empty: the schema of an older Lectern is built below
    const paths = dataPaths(dataDir)
    fs.mkdirSync(paths.vectors, { recursive: true })
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: paths.database }, useNullAsDefault: true })
    await knex.migrate.latest({
      migrationSource: sourceOf(MIGRATIONS.slice(0, MIGRATIONS.findIndex(([name]) => name === '0018_team_connections') + 1)),
    })
    await knex.destroy()
    const now = '2026-01-01T00:00:00.000Z'
    const db = new Database(paths.database)
    db.pragma('foreign_keys = ON')
    db.exec(`INSERT INTO users (pk, email, password_hash, role, created_at) VALUES (1, 'owner@example.com', 'x', 'member', '${now}');
      INSERT INTO teams (pk, name, plan, personal_user_pk, created_at) VALUES (1, 'owner@example.com', 'free', 1, '${now}'), (2, 'Acme', 'pro', NULL, '${now}'), (3, 'Gone', 'pro', NULL, '${now}');
      INSERT INTO team_members (team_pk, user_pk, role, created_at) VALUES (1, 1, 'owner', '${now}'), (2, 1, 'owner', '${now}');
      INSERT INTO api_keys (name, lookup, hash, created_at, user_pk, team_pk) VALUES ('acme', 'lookup-acme', 'h', '${now}', 1, 2);
      INSERT INTO libraries (id, title, source_type, source_url, is_private, team_pk, created_at, updated_at) VALUES ('/docs/spec--t2', 'Spec', 'openapi', 'upload:spec--t2.yaml', 1, 2, '${now}', '${now}');
      INSERT INTO connections (kind, name, base_url, token_sealed, created_at, team_pk) VALUES ('git', 'host', 'https://git.example.com', 'sealed', '${now}', 2);
      INSERT INTO invitations (team_pk, email, role, token_hash, created_at, expires_at) VALUES (2, 'dev@example.com', 'developer', 'th', '${now}', '${now}');
      DELETE FROM teams WHERE pk = 3;
      INSERT INTO redirects (from_id, to_id, created_at) VALUES ('/docs/old--t7', '/docs/new--t7', '${now}');`)
    db.close()

    const store = await openStore(dataDir)
    try {
      const counts = sqliteOf(store).prepare(`SELECT (SELECT count(*) FROM teams) AS teams, (SELECT count(*) FROM team_members) AS members,
        (SELECT count(*) FROM api_keys WHERE team_pk = 2) AS keys, (SELECT count(*) FROM libraries WHERE team_pk = 2) AS libraries,
        (SELECT count(*) FROM connections WHERE team_pk = 2) AS connections, (SELECT count(*) FROM invitations WHERE team_pk = 2) AS invitations`).get()
      expect(counts).toEqual({ teams: 2, members: 2, keys: 1, libraries: 1, connections: 1, invitations: 1 })
      expect(sqliteOf(store).pragma('foreign_key_check')).toEqual([])
      expect(await store.teams.byPk(2)).toMatchObject({ name: 'Acme', plan: 'pro' })
      // Above the deleted team 3, and above team 7 that a leftover redirect still names.
      expect((await store.teams.create({ name: 'Bravo', ownerUserId: 1, plan: 'pro' })).id).toBe(8)
      // The cascades still hold after the rebuild: deleting Acme deletes what references it.
      sqliteOf(store).prepare('DELETE FROM libraries WHERE team_pk = 2').run()
      sqliteOf(store).prepare('DELETE FROM teams WHERE pk = 2').run()
      expect(sqliteOf(store).prepare('SELECT count(*) AS n FROM connections').get()).toEqual({ n: 0 })
      expect(sqliteOf(store).prepare('SELECT count(*) AS n FROM team_members WHERE team_pk = 2').get()).toEqual({ n: 0 })
    } finally {
      await store.close()
    }
  })
})
