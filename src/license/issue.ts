/**
 * Issuing licenses in cloud mode and checking license keys on the export endpoint. A license
 * key is `lctl_` plus 32 random base64url characters; only its SHA-256 is stored, and its
 * first 8 characters after the prefix (the `licenseKeyId` in the license file) find its row.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { LecternError } from '../errors.js'
import type { Store } from '../store/index.js'
import { signLicense, type License, type LicenseFile } from './format.js'
import { signingKey } from './keys.js'

export const LICENSE_KEY_PREFIX = 'lctl_'
const KEY_SHAPE = /^lctl_[A-Za-z0-9_-]{32}$/
const ID_LENGTH = LICENSE_KEY_PREFIX.length + 8

export interface IssueRequest {
  customer: string
  offline: boolean
  /** A date (end of that day, UTC) or a full timestamp. */
  expires: string
  edition?: string
}

export interface IssuedLicense {
  licenseKey: string
  file: LicenseFile
}

const sha256 = (text: string) => createHash('sha256').update(text).digest()

function expiryOf(text: string): string {
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T23:59:59.999Z` : text)
  if (Number.isNaN(ms)) throw new LecternError('validation_error', `"${text}" is not a date; use YYYY-MM-DD.`)
  return new Date(ms).toISOString()
}

export async function issueLicense(store: Store, request: IssueRequest, now = Date.now()): Promise<IssuedLicense> {
  const customer = request.customer.trim()
  if (!customer) throw new LecternError('validation_error', 'A license needs a customer name.')
  const expiresAt = expiryOf(request.expires)
  if (Date.parse(expiresAt) <= now) throw new LecternError('validation_error', `The expiry ${expiresAt} is in the past.`)
  let licenseKey: string
  do licenseKey = `${LICENSE_KEY_PREFIX}${randomBytes(24).toString('base64url')}`
  while (await store.licenses.hasKeyId(licenseKey.slice(0, ID_LENGTH)))
  const license: License = {
    customer,
    edition: request.edition ?? 'enterprise',
    offline: request.offline,
    issuedAt: new Date(now).toISOString(),
    expiresAt,
    licenseKeyId: licenseKey.slice(0, ID_LENGTH),
  }
  const file = signLicense(license, await signingKey(store))
  const { licenseKeyId: keyId, edition, offline, issuedAt } = license
  await store.licenses.insert({ keyId, keyHash: sha256(licenseKey).toString('hex'), customer, edition, offline, issuedAt, expiresAt }, JSON.stringify(file))
  return { licenseKey, file }
}

export interface IssuedLicenseInfo {
  licenseKeyId: string
  customer: string
  edition: string
  offline: boolean
  issuedAt: string
  expiresAt: string
}

/**
 * The issued license a bearer license key belongs to. Unknown or malformed: 401
 * `invalid_api_key`; expired: 403 `forbidden` (the key is known, the plan has lapsed).
 */
export async function verifyLicenseKey(store: Store, key: string, now = new Date().toISOString()): Promise<IssuedLicenseInfo> {
  const unknown = new LecternError('invalid_api_key', 'Invalid license key: send "Authorization: Bearer lctl_..." with the key printed by `lectern license issue`.')
  if (!KEY_SHAPE.test(key)) throw unknown
  const row = await store.licenses.byKeyId(key.slice(0, ID_LENGTH))
  if (!row || !timingSafeEqual(sha256(key), Buffer.from(row.keyHash, 'hex'))) throw unknown
  if (row.expiresAt <= now) throw new LecternError('forbidden', `The license of ${row.customer} expired on ${row.expiresAt}; export needs a current license.`)
  return { licenseKeyId: row.keyId, customer: row.customer, edition: row.edition, offline: row.offline, issuedAt: row.issuedAt, expiresAt: row.expiresAt }
}
