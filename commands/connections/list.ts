import { Flags } from '@oclif/core'
import { humanDate, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { INSTALL_CONNECTIONS, type Connection } from '../../src/store/connections.js'

export default class ConnectionsList extends LecternCommand {
  static override summary = 'List stored connections (never their tokens).'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true
  static override flags = { kind: Flags.string({ summary: 'Only this kind.', options: ['confluence', 'notion', 'git'] }) }

  async run(): Promise<Connection[]> {
    const { flags } = await this.parse(ConnectionsList)
    const connections = await this.withRuntime(flags, 'read', async (rt) => await rt.store.connections.list(INSTALL_CONNECTIONS, flags.kind as Connection['kind'] | undefined))
    if (connections.length === 0) {
      this.log('No connections. Add one with `lectern connections add`.')
      return connections
    }
    this.log(
      table(connections, [
        { header: 'NAME', value: (c) => c.name },
        { header: 'KIND', value: (c) => c.kind },
        { header: 'URL', value: (c) => c.baseUrl },
        { header: 'EMAIL', value: (c) => c.email ?? '-' },
        { header: 'WEBHOOK', value: (c) => (c.kind !== 'git' ? '-' : c.webhook ? 'secret set' : 'none') },
        { header: 'CREATED', value: (c) => humanDate(c.createdAt) },
      ]),
    )
    return connections
  }
}
