import { Args } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import { cliContext } from '../../src/audit/log.js'
import { removeConnection } from '../../src/sources/connections.js'
import { INSTALL_CONNECTIONS, type Connection } from '../../src/store/connections.js'

export default class ConnectionsRemove extends LecternCommand {
  static override summary = 'Remove a stored connection and its token.'
  static override description = 'Libraries read through it keep their snippets, but refreshing them fails until a connection of the same name is added again.'
  static override examples = ['<%= config.bin %> <%= command.id %> acme']
  static override enableJsonFlag = true
  static override args = { name: Args.string({ description: 'Name of the connection.', required: true }) }
  
  async run(): Promise<Connection> {
    const { args, flags } = await this.parse(ConnectionsRemove)
    const removed = await this.withRuntime(flags, 'write', async (rt) => await removeConnection(rt.store, cliContext(), INSTALL_CONNECTIONS, args.name))
    this.log(`Removed connection "${removed.name}".`)
    return removed
  }
}
