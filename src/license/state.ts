/**
 * The installed license (`<dataDir>/license.json`) as the install sees it now: none, invalid,
 * expired or valid. Time only moves forward here: the latest time any check has seen is kept
 * in the settings table, and expiry is judged against it, so setting the clock back does not
 * revive an expired license. Only features that need a license consult this; backups and admin
 * login never do.
 */
import fs from 'node:fs'
import { LecternError } from '../errors.js'
import type { Store } from '../store/index.js'
import { SETTING_KEYS } from '../store/settings.js'
import { verifyLicenseText, type License } from './format.js'
import { configuredPublicKey } from './keys.js'

/** What checking a license needs: the store, and the start-up setting naming the public key. */
export interface LicenseDeps {
  store: Store
  config: { license: { publicKey: string } }
}

const HIGH_WATER_SETTING = SETTING_KEYS.licenseTimeHighWater

export type LicenseStatus =
  | { state: 'none' | 'invalid'; reason: string }
  | { state: 'expired' | 'valid'; license: License; reason?: string }

/** max(now, the latest time seen before), persisting it when the clock moved on. */
export function monotonicNow(store: Store, now = Date.now()): Promise<number> {
  // Read and written in one transaction: two checks at once cannot move it back.
  return store.transaction(async () => {
    const seen = await store.settings.get<string>(HIGH_WATER_SETTING)
    const highWater = seen === undefined ? 0 : Date.parse(seen)
    if (now <= highWater) return highWater
    await store.settings.set(HIGH_WATER_SETTING, new Date(now).toISOString())
    return now
  })
}

export async function licenseStatus({ store, config }: LicenseDeps, now = Date.now()): Promise<LicenseStatus> {
  const effectiveNow = await monotonicNow(store, now)
  let text: string
  try {
    text = fs.readFileSync(store.paths.license, 'utf8')
  } catch {
    return { state: 'none', reason: 'no license is installed (install one with `lectern license install <file>`)' }
  }
  let license: License
  try {
    const key = await configuredPublicKey(store, config.license.publicKey)
    if (!key) return { state: 'invalid', reason: 'no license public key is configured (set LECTERN_LICENSE_PUBLIC_KEY, or `lectern config set license.publicKeyFile <pem>`)' }
    license = verifyLicenseText(text, key)
  } catch (err) {
    return { state: 'invalid', reason: `${store.paths.license}: ${(err as Error).message}` }
  }
  if (Date.parse(license.expiresAt) <= effectiveNow) {
    const seen = new Date(effectiveNow).toISOString()
    return { state: 'expired', license, reason: `the license of ${license.customer} expired on ${license.expiresAt} (latest time seen ${seen})` }
  }
  return { state: 'valid', license }
}

/** Throws 403 `forbidden` saying why unless a valid offline license is installed. */
export async function requireOfflineLicense(deps: LicenseDeps, feature: string, now = Date.now()): Promise<License> {
  const status = await licenseStatus(deps, now)
  if (status.state !== 'valid') {
    throw new LecternError('forbidden', `${feature} needs a valid offline license: ${status.reason}.`)
  }
  if (!status.license.offline) {
    throw new LecternError('forbidden', `${feature} needs an offline (airgapped) license; the installed license of ${status.license.customer} is an online one.`)
  }
  return status.license
}

/** What the audit log says of an installed license. */
export const licenseFacts = (license: License): Record<string, unknown> => ({
  customer: license.customer,
  edition: license.edition,
  licenseKeyId: license.licenseKeyId,
  expiresAt: license.expiresAt,
})

/** Verifies a license file and copies it to the data directory; refuses invalid or expired ones. */
export async function installLicense({ store, config }: LicenseDeps, text: string, now = Date.now()): Promise<License> {
  const key = await configuredPublicKey(store, config.license.publicKey)
  if (!key) throw new LecternError('validation_error', 'No license public key is configured: set LECTERN_LICENSE_PUBLIC_KEY or `lectern config set license.publicKeyFile <pem>`.')
  const license = verifyLicenseText(text, key)
  if (Date.parse(license.expiresAt) <= await monotonicNow(store, now)) {
    throw new LecternError('validation_error', `The license expired on ${license.expiresAt}; ask for a new one.`)
  }
  const tmp = `${store.paths.license}.${process.pid}.tmp`
  fs.writeFileSync(tmp, text, { mode: 0o600 })
  fs.renameSync(tmp, store.paths.license)
  return license
}
