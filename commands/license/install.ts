import fs from 'node:fs'
import { audit, cliContext } from '../../src/audit/log.js'
import { Args } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import { LecternError } from '../../src/errors.js'
import type { License } from '../../src/license/format.js'
import { installLicense, licenseFacts } from '../../src/license/state.js'

export default class LicenseInstall extends LecternCommand {
  static override summary = 'Verify a license file and install it into the data directory.'
  static override description = `The signature is checked with the configured public key (LECTERN_LICENSE_PUBLIC_KEY, or the license.publicKeyFile setting). A tampered, foreign or expired license is refused and nothing changes.`
  static override examples = ['<%= config.bin %> <%= command.id %> ./acme-license.json']
  static override enableJsonFlag = true
  static override args = { file: Args.string({ description: 'License file (JSON).', required: true }) }
  
  async run(): Promise<License> {
    const { args, flags } = await this.parse(LicenseInstall)
    let text: string
    try {
      text = fs.readFileSync(args.file, 'utf8')
    } catch (err) {
      throw new LecternError('validation_error', `Cannot read ${args.file}: ${(err as Error).message}.`)
    }
    const license = await this.withRuntime(flags, 'write', async (rt) => {
      const installed = await installLicense(rt, text)
      await audit(rt.store, cliContext(), 'settings.changed', 'license', licenseFacts(installed))
      return installed
    })
    this.log(`Installed the ${license.offline ? 'offline' : 'online'} ${license.edition} license of ${license.customer}, valid until ${license.expiresAt}.`)
    return license
  }
}
