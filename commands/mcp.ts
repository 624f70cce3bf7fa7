import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { LecternCommand } from '../cli/run.js'
import { LOCAL } from '../src/library/access.js'
import { createMcpServer, type McpCaller } from '../src/mcp/tools.js'
import { clientKind } from '../src/usage/recorder.js'

export default class Mcp extends LecternCommand {
  static override summary = 'Serve the MCP tools over stdio, on the local data directory.'
  static override description = `For an AI tool on this machine: it starts this command and talks MCP over stdin/stdout. The tools (resolve-library-id, query-docs, get-library-docs) read the data directory directly; a server need not run. Nothing but protocol messages is written to stdout.

Claude Code, for example: claude mcp add lectern -- lectern mcp --data-dir /var/lib/lectern`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --data-dir /var/lib/lectern',
  ]

  async run(): Promise<void> {
    const { flags } = await this.parse(Mcp)
    await this.withRuntime(flags, 'read', async (runtime) => {
      const caller: McpCaller = { caller: LOCAL, transport: 'mcp-stdio', client: 'mcp-stdio', user: 'local' }
      const server = createMcpServer(runtime, caller)
      // One client per process, named in its initialize: usage and metrics count under that name.
      server.server.oninitialized = () => {
        caller.client = clientKind(server.server.getClientVersion()?.name.replace(/\s+/g, '-'), 'mcp-stdio')
      }
      const transport = new StdioServerTransport()
      const closed = new Promise<void>((resolve) => {
        transport.onclose = () => resolve()
        process.stdin.once('end', () => resolve())
      })
      await server.connect(transport)
      await closed
      await server.close()
    })
  }
}
