import { Args } from '@oclif/core'
import { table } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { LecternError } from '../../src/errors.js'
import { describeSettings, settingText, type SettingRow } from '../../src/settings.js'

export default class ConfigGet extends LecternCommand {
  static override summary = 'Show every setting (or one) with its value and where it came from.'
  static override description =
    'Start-up settings come from a flag, else the environment, else lectern.yaml, else their default; the source column says which. Stored settings (changed with `lectern config set`, `lectern backup config set`) live in the data directory and reach a running server at once. Secrets are never shown.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> mcp.requireKey --json',
    'LECTERN_LOG_LEVEL=debug <%= config.bin %> <%= command.id %> log.level',
  ]
  static override enableJsonFlag = true
  static override args = { name: Args.string({ description: 'Setting name, e.g. server.port or embedding.' }) }

  async run(): Promise<SettingRow[]> {
    const { args, flags } = await this.parse(ConfigGet)
    const { rows, resolved } = await this.withRuntime(flags, 'read', async (rt, resolved) => ({ rows: await describeSettings(resolved, rt.store), resolved }))
    const shown = args.name === undefined ? rows : rows.filter((r) => r.name === args.name)
    if (shown.length === 0) throw new LecternError('validation_error', `Unknown setting "${args.name}". Settings: ${rows.map((r) => r.name).join(', ')}.`)
    if (args.name !== undefined && shown.length === 1) this.log(settingText(shown[0], resolved))
    else {
      this.log(
        table(shown, [
          { header: 'SETTING', value: (r) => r.name },
          { header: 'VALUE', value: (r) => settingText(r, resolved) },
          { header: 'SOURCE', value: (r) => r.source },
        ]),
      )
    }
    return shown
  }
}
