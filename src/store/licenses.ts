/**
 * Licenses issued in cloud mode (src/license/issue.ts): a row per license key, found by the key's
 * id, holding only the key's SHA-256 and the signed license file as issued.
 */
import type { Sql } from './sql.js'

export interface IssuedLicenseRow {
  /** The key's prefix and first 8 characters: `licenseKeyId` in the license file. */
  keyId: string
  /** SHA-256 of the whole key, hex. */
  keyHash: string
  customer: string
  edition: string
  offline: boolean
  issuedAt: string
  expiresAt: string
}

export interface LicensesRepository {
  hasKeyId(keyId: string): Promise<boolean>
  /** Records an issued license with its signed file (JSON). */
  insert(license: IssuedLicenseRow, fileJson: string): Promise<void>
  byKeyId(keyId: string): Promise<IssuedLicenseRow | undefined>
}

interface Row {
  key_id: string
  key_hash: string
  customer: string
  edition: string
  offline: number
  issued_at: string
  expires_at: string
}

export function createLicensesRepository(sql: Sql): LicensesRepository {
  const byKeyId = (keyId: string) => sql.get<Row>('SELECT key_id, key_hash, customer, edition, offline, issued_at, expires_at FROM licenses WHERE key_id = ?', [keyId])
  return {
    hasKeyId: async (keyId) => (await byKeyId(keyId)) !== undefined,
    async insert(l, fileJson) {
      await sql.run('INSERT INTO licenses (key_id, key_hash, customer, edition, offline, issued_at, expires_at, license_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        l.keyId,
        l.keyHash,
        l.customer,
        l.edition,
        l.offline ? 1 : 0,
        l.issuedAt,
        l.expiresAt,
        fileJson,
      ])
    },
    async byKeyId(keyId) {
      const row = await byKeyId(keyId)
      return (
        row && {
          keyId: row.key_id,
          keyHash: row.key_hash,
          customer: row.customer,
          edition: row.edition,
          offline: row.offline === 1,
          issuedAt: row.issued_at,
          expiresAt: row.expires_at,
        }
      )
    },
  }
}
