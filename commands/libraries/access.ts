import { Args, Flags } from '@oclif/core'
import { colour, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { LecternError } from '../../src/errors.js'
import { cliContext } from '../../src/audit/log.js'
import { changeGrants, describeLibraryAccess, describeOneLibrary, requireOnPremise, setLibraryAccess, type LibraryAccessView } from '../../src/tenancy/library-access.js'

type Entry = LibraryAccessView['libraries'][number]

const GRANTS = ['grant', 'revoke', 'grant-group', 'revoke-group'] as const

const whoCanAccess = (entry: Entry): string =>
  entry.effective === 'everyone'
    ? 'All members'
    : entry.users.length + entry.groups.length === 0
      ? 'Admins only'
      : [...entry.users.map((u) => u.email), ...entry.groups.map((group) => `group ${group}`)].join(', ')

/** The access a library ends up with, said after every change and when shown. */
const accessLine = (entry: Entry): string =>
  `${entry.libraryId}: ${entry.effective === 'restricted' ? 'restricted' : 'open to everyone'}${entry.access === 'default' ? ' (the default)' : ''}; who can access: ${whoCanAccess(entry)}.`

export default class LibrariesAccess extends LecternCommand {
  static override summary = 'Show or set who may reach libraries (on-premise library access control; refused in the cloud).'
  static override description =
    'Without flags, lists every library with its access and who can reach it; with a library ID alone, shows that library\'s. --restrict closes a library to everyone but admins and the --user and --group grantees (their sessions and their keys; the members of a group as the single sign-on provider named them at their last sign-in), and the lists replace the grantees it had (none: admins only); --grant and --revoke (users), --grant-group and --revoke-group add or remove grantees of a restricted library and keep the others; --everyone opens it; --default hands it back to the workspace default (`lectern config set access.restrictNewLibraries true|false`). Every change prints who can access the library afterwards. Keys without a user (`lectern keys create` without --user) reach open libraries only: give keys an owner. Restricted libraries answer as unknown ones to everybody else.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> /acme/widgets --json',
    '<%= config.bin %> <%= command.id %> /acme/widgets --restrict --user alice@example.com',
    '<%= config.bin %> <%= command.id %> /acme/widgets --grant bob@example.com',
    '<%= config.bin %> <%= command.id %> /acme/widgets --restrict --group widgets-team --user alice@example.com',
    '<%= config.bin %> <%= command.id %> /acme/widgets --everyone --json',
  ]
  static override enableJsonFlag = true
  static override args = { library: Args.string({ description: 'Library ID to show or set (without one: list every library).' }) }
  static override flags = {
    everyone: Flags.boolean({ summary: 'Open the library to everyone.', exclusive: ['restrict', 'default', ...GRANTS] }),
    restrict: Flags.boolean({ summary: 'Restrict the library to admins and the --user and --group grantees, replacing the grantees it had.', exclusive: ['everyone', 'default', ...GRANTS] }),
    default: Flags.boolean({ summary: 'Make the library follow the workspace default.', exclusive: ['everyone', 'restrict', ...GRANTS] }),
    user: Flags.string({ summary: 'With --restrict: email of a user granted the library (repeatable); the list replaces the earlier grantees.', multiple: true, dependsOn: ['restrict'] }),
    group: Flags.string({ summary: 'With --restrict: a single sign-on group whose members are granted the library (repeatable).', multiple: true, dependsOn: ['restrict'] }),
    'grant-group': Flags.string({ summary: "A single sign-on group to add to a restricted library's grantees, keeping the others (repeatable).", multiple: true }),
    'revoke-group': Flags.string({ summary: "A single sign-on group to remove from a restricted library's grantees (repeatable).", multiple: true }),
    grant: Flags.string({ summary: 'Email of a user to add to a restricted library\'s grantees, keeping the others (repeatable).', multiple: true }),
    revoke: Flags.string({ summary: 'Email of a user to remove from a restricted library\'s grantees, keeping the others (repeatable).', multiple: true }),
  }

  async run(): Promise<LibraryAccessView | Entry> {
    const { args, flags } = await this.parse(LibrariesAccess)
    const access = flags.everyone ? 'everyone' : flags.restrict ? 'restricted' : flags.default ? 'default' : undefined
    const grants = GRANTS.some((flag) => flags[flag] !== undefined)
    const library = args.library
    if (library === undefined) {
      if (access !== undefined || grants) throw new LecternError('validation_error', 'Name the library to set, e.g. /acme/widgets.')
      const view = await this.withRuntime(flags, 'read', async (rt) => {
        requireOnPremise(rt.config.mode)
        return await describeLibraryAccess(rt.store)
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
    const entry = await this.withRuntime(flags, 'read', async (rt) => {
      requireOnPremise(rt.config.mode)
      if (access !== undefined) return await setLibraryAccess(rt.store, cliContext(), library, access, { users: flags.user, groups: flags.group })
      if (grants) {
        const change = { grant: flags.grant ?? [], revoke: flags.revoke ?? [], grantGroups: flags['grant-group'], revokeGroups: flags['revoke-group'] }
        return await changeGrants(rt.store, cliContext(), library, change)
      }
      return await describeOneLibrary(rt.store, library)
    })
    this.log(accessLine(entry))
    return entry
  }
}
