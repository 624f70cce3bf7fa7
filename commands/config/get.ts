import { Args } from '@oclif/core'
import { dataDirFlag } from '../../cli/flags.js'
import { LecternCommand, withRuntime } from '../../cli/run.js'
import { LecternError } from '../../src/errors.js'
import { SETTINGS, isSettingName, readSetting } from '../../src/settings.js'

export default class ConfigGet extends LecternCommand {
  static override summary = 'Show settings (all, or one by name).'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> mcp.requireKey --json']
  static override enableJsonFlag = true
  static override args = { name: Args.string({ description: 'Setting name.' }) }
  static override flags = { 'data-dir': dataDirFlag }

  async run(): Promise<Record<string, unknown>> {
    const { args, flags } = await this.parse(ConfigGet)
    const names = args.name === undefined ? Object.keys(SETTINGS) : [args.name]
    for (const name of names) {
      if (!isSettingName(name)) throw new LecternError('validation_error', `Unknown setting "${name}". Known settings: ${Object.keys(SETTINGS).join(', ')}.`)
    }
    const values = await withRuntime(flags['data-dir'], (rt) =>
      Object.fromEntries(names.map((name) => [name, readSetting(rt.store.settings, name as keyof typeof SETTINGS)])),
    )
    for (const [name, value] of Object.entries(values)) {
      this.log(`${name} = ${JSON.stringify(value)}    # ${SETTINGS[name as keyof typeof SETTINGS].description}`)
    }
    return values
  }
}
