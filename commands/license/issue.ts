import fs from 'node:fs'
import { Flags } from '@oclif/core'
import { modeFlag } from '../../cli/flags.js'
import type { Mode } from '../../src/config.js'
import { LecternCommand } from '../../cli/run.js'
import { LecternError } from '../../src/errors.js'
import { issueLicense, type IssuedLicense } from '../../src/license/issue.js'
import { publicKeyPem, signingKey } from '../../src/license/keys.js'

export default class LicenseIssue extends LecternCommand {
  static override summary = 'Issue a signed license (cloud mode): prints the license key and the license file.'
  static override description = `Signs with this cloud's Ed25519 key (created on first use, stored sealed in the data directory). The license key (lctl_...) authorises POST /api/v1/enterprise/export; it is shown once and stored only as a hash. The license file goes to the customer's install: lectern license install. Installs verify it with the public key printed by --public-key.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> --customer "Acme Corp" --offline --expires 2030-12-31 -o acme-license.json',
    '<%= config.bin %> <%= command.id %> --public-key',
  ]
  static override enableJsonFlag = true
  static override flags = {
    mode: modeFlag,
    customer: Flags.string({ summary: 'Customer name.' }),
    offline: Flags.boolean({ summary: 'An offline (airgapped) license: enables library import.' }),
    expires: Flags.string({ summary: 'Expiry date, YYYY-MM-DD (end of that day, UTC).' }),
    edition: Flags.string({ summary: 'Edition name.', default: 'enterprise' }),
    output: Flags.string({ char: 'o', summary: 'Also write the license file here.' }),
    'public-key': Flags.boolean({ summary: 'Only print the PEM public key that verifies this cloud\'s licenses.' }),
  }

  async run(): Promise<IssuedLicense | { publicKey: string }> {
    const { flags } = await this.parse(LicenseIssue)
    if (this.resolveConfig(flags, { mode: flags.mode as Mode }).config.mode !== 'cloud') throw new LecternError('forbidden', 'Licenses are issued by a cloud install: run with --mode cloud (or LECTERN_MODE=cloud).')
    if (flags['public-key']) {
      const publicKey = await this.withRuntime(flags, 'write', async (rt) => publicKeyPem(await signingKey(rt.store)))
      this.log(publicKey.trim())
      return { publicKey }
    }
    if (!flags.customer || !flags.expires) throw new LecternError('validation_error', 'Give --customer and --expires (YYYY-MM-DD).')
    const issued = await this.withRuntime(flags, 'write', async (rt) =>
      await issueLicense(rt.store, { customer: flags.customer!, offline: flags.offline, expires: flags.expires!, edition: flags.edition }),
    )
    const fileText = `${JSON.stringify(issued.file, null, 2)}\n`
    if (flags.output) fs.writeFileSync(flags.output, fileText, { mode: 0o600 })
    this.log(`License key (shown once; the export endpoint accepts it as Bearer): ${issued.licenseKey}`)
    this.log(flags.output ? `License file written to ${flags.output}` : `License file:\n${fileText}`)
    return issued
  }
}
