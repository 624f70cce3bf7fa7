import { Args, Flags } from '@oclif/core'
import { colour, table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { LecternError } from '../../src/errors.js'
import { cliContext } from '../../src/audit/log.js'
import { isNamespace } from '../../src/library/namespace.js'
import {
  changeGrants,
  describeLibraryAccess,
  describeNamespace,
  describeOneLibrary,
  requireOnPremise,
  setLibraryAccess,
  setNamespaceAccess,
  type AccessState,
  type LibraryAccessView,
} from '../../src/tenancy/library-access.js'

const GRANTS = ['grant', 'revoke', 'grant-group', 'revoke-group'] as const

const whoCanAccess = (entry: AccessState): string =>
  entry.effective === 'everyone'
    ? 'Anyone, with or without a key'
    : entry.users.length + entry.groups.length === 0
      ? 'Admins only'
      : [...entry.users.map((u) => u.email), ...entry.groups.map((group) => `group ${group}`)].join(', ')

/** Where a library's access comes from when it has no rule of its own. */
const followed = (entry: AccessState): string =>
  entry.access !== 'default' ? '' : 'libraryId' in entry && entry.namespace !== null ? ` (the rule of ${entry.namespace})` : ' (the default)'

/** The access a library or namespace ends up with, said after every change and when shown. */
const accessLine = (entry: AccessState): string => {
  const access = entry.effective === 'restricted' ? 'restricted' : 'open to everyone'
  if ('libraryId' in entry) return `${entry.libraryId}: ${access}${followed(entry)}; who can access: ${whoCanAccess(entry)}.`
  if (entry.access === 'default') return `${entry.namespace} has no rule: the libraries under it follow their own rules or the workspace default (${access}).`
  const governs = `${entry.libraries} ${entry.libraries === 1 ? 'library' : 'libraries'}`
  return `${entry.namespace}, governing ${governs} without a rule of their own: ${access}; who can access: ${whoCanAccess(entry)}.`
}

export default class LibrariesAccess extends LecternCommand {
  static override summary = 'Show or set who may reach libraries and namespaces (on-premise library access control; refused in the cloud).'
  static override description = [
    "Without flags, lists every namespace rule and every library with its access and who can reach it; with a library ID or namespace alone, shows that one's.",
    '--restrict closes a library to everyone but admins and the --user and --group grantees (their sessions and their keys; the members of a group as the single sign-on provider named them at their last sign-in), and the lists replace the grantees it had (none: admins only); --grant and --revoke (users), --grant-group and --revoke-group add or remove grantees of a restricted library and keep the others; --everyone opens it; --default hands it back to the workspace default (`lectern config set access.restrictNewLibraries true|false`).',
    "A namespace such as '/acme/*' or '/acme/payments/*' (quoted, so that the shell leaves it alone) takes the same flags and governs every library under it that has no rule of its own: the longest matching namespace wins, a library's own rule wins over any namespace, and --default removes the namespace's rule.",
    'Every change prints who can access the library afterwards. Keys without a user (`lectern keys create` without --user) reach open libraries only: give keys an owner. Restricted libraries answer as unknown ones to everybody else.',
  ].join('\n\n')
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> /acme/widgets --json',
    '<%= config.bin %> <%= command.id %> /acme/widgets --restrict --user alice@example.com',
    '<%= config.bin %> <%= command.id %> /acme/widgets --grant bob@example.com',
    '<%= config.bin %> <%= command.id %> /acme/widgets --restrict --group widgets-team --user alice@example.com',
    '<%= config.bin %> <%= command.id %> /acme/widgets --everyone --json',
    "<%= config.bin %> <%= command.id %> '/acme/*' --restrict --group acme-engineering",
    "<%= config.bin %> <%= command.id %> '/acme/*' --default",
  ]
  static override enableJsonFlag = true
  static override args = { library: Args.string({ description: "Library ID, or namespace such as '/acme/*', to show or set (without one: list every library and namespace rule)." }) }
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

  async run(): Promise<LibraryAccessView | AccessState> {
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
      if (view.namespaces.length > 0) {
        this.log(
          table(view.namespaces, [
            { header: 'NAMESPACE', value: (n) => n.namespace },
            { header: 'ACCESS', value: (n) => (n.effective === 'restricted' ? colour.yellow('Restricted') : 'Everyone') },
            { header: 'WHO CAN ACCESS', value: whoCanAccess },
            { header: 'LIBRARIES', value: (n) => String(n.libraries) },
          ]),
        )
      }
      this.log(
        table(view.libraries, [
          { header: 'LIBRARY', value: (l) => l.libraryId },
          { header: 'ACCESS', value: (l) => (l.effective === 'restricted' ? colour.yellow('Restricted') : 'Everyone') + (l.access !== 'default' ? '' : l.namespace !== null ? ` (${l.namespace})` : ' (default)') },
          { header: 'WHO CAN ACCESS', value: whoCanAccess },
        ]),
      )
      return view
    }
    const entry = await this.withRuntime(flags, 'read', async (rt) => {
      requireOnPremise(rt.config.mode)
      const grantees = { users: flags.user, groups: flags.group }
      if (access !== undefined) {
        return isNamespace(library) ? await setNamespaceAccess(rt.store, cliContext(), library, access, grantees) : await setLibraryAccess(rt.store, cliContext(), library, access, grantees)
      }
      if (grants) {
        const change = { grant: flags.grant ?? [], revoke: flags.revoke ?? [], grantGroups: flags['grant-group'], revokeGroups: flags['revoke-group'] }
        return await changeGrants(rt.store, cliContext(), library, change)
      }
      return isNamespace(library) ? await describeNamespace(rt.store, library) : await describeOneLibrary(rt.store, library)
    })
    this.log(accessLine(entry))
    return entry
  }
}
