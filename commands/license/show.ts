import { humanTimestamp, record, stateColour } from '../../cli/output.js'
import { LecternCommand } from '../../cli/run.js'
import { licenseStatus, type LicenseStatus } from '../../src/license/state.js'

export default class LicenseShow extends LecternCommand {
  static override summary = 'Show the installed license and whether it is valid now.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true

  async run(): Promise<LicenseStatus> {
    const { flags } = await this.parse(LicenseShow)
    const status = await this.withRuntime(flags, 'read', async (rt) => await licenseStatus(rt))
    if (!('license' in status)) {
      this.log(record([['License', `${stateColour(status.state)}: ${status.reason}`]]))
      return status
    }
    const { license } = status
    this.log(
      record([
        ['License', `${stateColour(status.state)}${status.reason ? ` (${status.reason})` : ''}`],
        ['Customer', license.customer],
        ['Edition', `${license.edition}${license.offline ? ', offline' : ''}`],
        ['Issued', humanTimestamp(license.issuedAt)],
        ['Expires', humanTimestamp(license.expiresAt)],
        ['License key', `${license.licenseKeyId}...`],
      ]),
    )
    return status
  }
}
