import { LecternCommand } from '../../cli/run.js'
import { licenseStatus, type LicenseStatus } from '../../src/license/state.js'

export default class LicenseShow extends LecternCommand {
  static override summary = 'Show the installed license and whether it is valid now.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
  static override enableJsonFlag = true
  
  async run(): Promise<LicenseStatus> {
    const { flags } = await this.parse(LicenseShow)
    const status = await this.withRuntime(flags, 'read', (rt) => licenseStatus(rt))
    if (!('license' in status)) {
      this.log(`License: ${status.state} (${status.reason})`)
      return status
    }
    const { license } = status
    this.log(`License:     ${status.state}${status.reason ? ` (${status.reason})` : ''}`)
    this.log(`Customer:    ${license.customer}`)
    this.log(`Edition:     ${license.edition}${license.offline ? ', offline' : ''}`)
    this.log(`Issued:      ${license.issuedAt}`)
    this.log(`Expires:     ${license.expiresAt}`)
    this.log(`License key: ${license.licenseKeyId}...`)
    return status
  }
}
