import { Args } from '@oclif/core'
import { dataDirFlag } from '../../cli/flags.js'
import { LecternCommand, withRuntime } from '../../cli/run.js'
import { SETTINGS, writeSetting } from '../../src/settings.js'

export default class ConfigSet extends LecternCommand {
  static override summary = 'Change a setting; a running server picks it up at once.'
  static override description = `Settings:\n${Object.entries(SETTINGS)
    .map(([name, spec]) => `  ${name} (default ${JSON.stringify(spec.default)}): ${spec.description}`)
    .join('\n')}`
  static override examples = ['<%= config.bin %> <%= command.id %> mcp.requireKey true']
  static override enableJsonFlag = true
  static override args = {
    name: Args.string({ description: 'Setting name.', required: true }),
    value: Args.string({ description: 'New value.', required: true }),
  }
  static override flags = { 'data-dir': dataDirFlag }

  async run(): Promise<{ name: string; value: unknown }> {
    const { args, flags } = await this.parse(ConfigSet)
    const result = await withRuntime(flags['data-dir'], (rt) => writeSetting(rt.store.settings, args.name, args.value))
    this.log(`${result.name} = ${JSON.stringify(result.value)}`)
    return result
  }
}
