import { Args, Flags } from '@oclif/core'
import { colour, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { LecternError } from '../../src/errors.js'
import { describeLibraryAccess, requireOnPremise, setLibraryAccess, type LibraryAccessView } from '../../src/tenancy/library-access.js'

type Entry = LibraryAccessView['libraries'][number]

const whoCanAccess = (entry: Entry): string =>
  entry.effective === 'everyone' ? 'All members' : entry.users.length === 0 ? 'Admins only' : entry.users.map((u) => u.email).join(', ')

export default class LibrariesAccess extends LecternCommand {
  static override summary = 'Show or set who may reach libraries (on-premise library access control; refused in the cloud).'
  static override description =
    'Without flags, lists every library with its access and who can reach it. --restrict closes a library to everyone but admins and the --user grantees (their sessions and their keys); --everyone opens it; --default hands it back to the workspace default (`lectern config set access.restrictNewLibraries true|false`). Keys without a user (`lectern keys create` without --user) reach open libraries only: give keys an owner. Restricted libraries answer as unknown ones to everybody else.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> /acme/widgets --restrict --user alice@example.com',
    '<%= config.bin %> <%= command.id %> /acme/widgets --everyone --json',
  ]
  static override enableJsonFlag = true
  static override args = { library: Args.string({ description: 'Library ID to set (without one: list every library).' }) }
  static override flags = {
    everyone: Flags.boolean({ summary: 'Open the library to everyone.', exclusive: ['restrict', 'default'] }),
    restrict: Flags.boolean({ summary: 'Restrict the library to admins and the --user grantees.', exclusive: ['everyone', 'default'] }),
    default: Flags.boolean({ summary: 'Make the library follow the workspace default.', exclusive: ['everyone', 'restrict'] }),
    user: Flags.string({ summary: 'Email of a user granted the restricted library (repeatable).', multiple: true, dependsOn: ['restrict'] }),
  }

  async run(): Promise<LibraryAccessView | Entry> {
    const { args, flags } = await this.parse(LibrariesAccess)
    const access = flags.everyone ? 'everyone' : flags.restrict ? 'restricted' : flags.default ? 'default' : undefined
    if (access === undefined) {
      if (args.library !== undefined) throw new LecternError('validation_error', 'Say what to set: --everyone, --restrict [--user <email> ...] or --default.')
      const view = await this.withRuntime(flags, 'read', (rt) => {
        requireOnPremise(rt.config.mode)
        return describeLibraryAccess(rt.store)
      })
      this.log(`Default for libraries nobody configured: ${view.restrictNewLibraries ? 'restricted' : 'everyone'}.`)
      this.log(
        table(view.libraries, [
          { header: 'LIBRARY', value: (l) => l.libraryId },
          { header: 'ACCESS', value: (l) => (l.effective === 'restricted' ? colour.yellow('Restricted') : 'Everyone') + (l.access === 'default' ? ' (default)' : '') },
          { header: 'WHO CAN ACCESS', value: whoCanAccess },
        ]),
      )
      return view
    }
    if (args.library === undefined) throw new LecternError('validation_error', 'Name the library to set, e.g. /acme/widgets.')
    const library = args.library
    const entry = await this.withRuntime(flags, 'read', (rt) => {
      requireOnPremise(rt.config.mode)
      return setLibraryAccess(rt.store, library, access, flags.user ?? [])
    })
    this.log(`${entry.libraryId}: ${entry.effective === 'restricted' ? 'restricted' : 'open to everyone'}${entry.access === 'default' ? ' (the default)' : ''}; who can access: ${whoCanAccess(entry)}.`)
    return entry
  }
}
