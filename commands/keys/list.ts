import { colour, humanDate, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import type { ApiKeyInfo } from '../../src/store/keys.js'

export default class KeysList extends LecternCommand {
  static override summary = 'List API keys (never the keys themselves).'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true

  async run(): Promise<ApiKeyInfo[]> {
    const { flags } = await this.parse(KeysList)
    const { keys, emails, teams } = await this.withRuntime(flags, 'read', async (rt) => ({
      keys: await rt.store.keys.list(),
      emails: new Map((await rt.store.users.list()).map((u) => [u.id, u.email])),
      teams: new Map((await rt.store.teams.list()).map((t) => [t.id, t.name])),
    }))
    if (keys.length === 0) {
      this.log('No API keys. Create one with `lectern keys create --name <name>`.')
      return keys
    }
    this.log(
      table(keys, [
        { header: 'ID', value: (k) => String(k.id), right: true },
        { header: 'NAME', value: (k) => k.name },
        { header: 'KEY', value: (k) => k.preview },
        // A key without an owner reaches open libraries only once any is restricted (README: Library access control).
        { header: 'OWNER', value: (k) => (k.userId === null ? '-' : (emails.get(k.userId) ?? '-')) },
        // The teamspace a cloud key works in (its personal space is named by its email); none on-premise.
        { header: 'TEAM', value: (k) => (k.teamId === null ? '-' : (teams.get(k.teamId) ?? '-')) },
        { header: 'CREATED', value: (k) => humanDate(k.createdAt) },
        { header: 'LAST USED', value: (k) => (k.lastUsedAt ? humanDate(k.lastUsedAt) : 'never') },
        { header: 'STATUS', value: (k) => (k.revokedAt ? colour.red(`revoked ${humanDate(k.revokedAt)}`) : colour.green('active')) },
      ]),
    )
    return keys
  }
}
