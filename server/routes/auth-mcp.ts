import type { FastifyInstance } from 'fastify'
import { readSetting } from '../../src/settings.js'

/** Whether /mcp requires an API key; `ctx7 setup --base-url` asks this before configuring a client. */
export default async function authMcp(app: FastifyInstance): Promise<void> {
  app.get('/auth/mcp', async () => ({ enabled: await readSetting(app.runtime.store.settings, 'mcp.requireKey') }))
}
