/**
 * The offline license file: `{license: {...}, signature}` where the signature is Ed25519 over
 * the canonical JSON of `license` (keys sorted, no spaces). Canonical form makes the signature
 * independent of how a file was re-indented or its keys reordered; any change of a value breaks it.
 */
import { sign, verify, type KeyObject } from 'node:crypto'
import { z } from 'zod'
import { LecternError } from '../errors.js'

export const licenseSchema = z
  .object({
    customer: z.string().min(1),
    edition: z.string().min(1),
    offline: z.boolean(),
    issuedAt: z.string().datetime(),
    expiresAt: z.string().datetime(),
    licenseKeyId: z.string().min(1),
  })
  .strict()

export type License = z.infer<typeof licenseSchema>

export interface LicenseFile {
  license: License
  signature: string
}

const fileSchema = z.object({ license: z.unknown(), signature: z.string().min(1) }).strict()

/** JSON with object keys sorted at every level: the bytes that are signed. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

export function signLicense(license: License, privateKey: KeyObject): LicenseFile {
  const signature = sign(null, Buffer.from(canonicalJson(license)), privateKey).toString('base64')
  return { license, signature }
}

const invalid = (why: string) => new LecternError('validation_error', `The license is invalid: ${why}.`)

/**
 * The license in `text` when its signature verifies with `publicKey`; otherwise a
 * validation_error saying what is wrong. Expiry is not judged here (see state.ts).
 */
export function verifyLicenseText(text: string, publicKey: KeyObject): License {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    throw invalid('it is not JSON')
  }
  const file = fileSchema.safeParse(raw)
  if (!file.success) throw invalid('expected {"license": {...}, "signature": "<base64>"}')
  const signature = Buffer.from(file.data.signature, 'base64')
  if (signature.length !== 64 || !verify(null, Buffer.from(canonicalJson(file.data.license)), publicKey, signature)) {
    throw invalid('its signature does not match its content (tampered, or signed by another key)')
  }
  const license = licenseSchema.safeParse(file.data.license)
  if (!license.success) throw invalid(`field ${license.error.issues[0].path.join('.')}: ${license.error.issues[0].message}`)
  if (Date.parse(license.data.expiresAt) <= Date.parse(license.data.issuedAt)) throw invalid('it expires before it was issued')
  return license.data
}
