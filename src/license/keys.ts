/**
 * The Ed25519 keys of licensing. An install verifies with a configured public key (the
 * start-up setting license.publicKey, i.e. `LECTERN_LICENSE_PUBLIC_KEY`: PEM or base64 of the 32
 * raw bytes; else the stored `license.publicKeyFile` setting, kept with its text so every
 * process verifies with the same key whatever its working directory). The cloud signs with its own private key, generated on
 * first use and kept sealed with the data directory's secret key, never in plain text.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto'
import fs from 'node:fs'
import { LecternError } from '../errors.js'
import type { Store } from '../store/index.js'
import { SETTING_KEYS } from '../store/settings.js'

const SIGNING_KEY_SETTING = SETTING_KEYS.licenseSigningKey
/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 raw key bytes follow it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

export function parsePublicKey(text: string): KeyObject {
  const trimmed = text.trim()
  let key: KeyObject
  try {
    if (trimmed.startsWith('-----BEGIN')) {
      key = createPublicKey(trimmed)
    } else {
      const raw = Buffer.from(trimmed, 'base64')
      if (raw.length !== 32) throw new Error(`${raw.length} bytes`)
      key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' })
    }
  } catch (err) {
    throw new LecternError('validation_error', `The license public key is not an Ed25519 PEM or 32 base64 bytes (${(err as Error).message}).`)
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new LecternError('validation_error', `The license public key is ${key.asymmetricKeyType}, not Ed25519.`)
  return key
}

/** A license public key file as `lectern config set license.publicKeyFile` stores it. */
export interface StoredPublicKey {
  file: string
  pem: string
}

/** The verifying key: the start-up setting's, else the stored file's; undefined when neither is set. */
export async function configuredPublicKey(store: Store, configured: string): Promise<KeyObject | undefined> {
  if (configured.trim()) return parsePublicKey(configured)
  const stored = await store.settings.get<StoredPublicKey | string>(SETTING_KEYS.licensePublicKeyFile)
  // Installs of 0.1.0 stored the path alone.
  if (typeof stored === 'string') return stored ? parsePublicKey(fs.readFileSync(stored, 'utf8')) : undefined
  return stored ? parsePublicKey(stored.pem) : undefined
}

/** The cloud's signing key, created and stored sealed the first time it is needed. */
export async function signingKey(store: Store): Promise<KeyObject> {
  const sealed = await store.settings.get<string>(SIGNING_KEY_SETTING)
  if (sealed !== undefined) return createPrivateKey(store.secrets.open(sealed))
  const { privateKey } = generateKeyPairSync('ed25519')
  await store.settings.set(SIGNING_KEY_SETTING, store.secrets.seal(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()))
  return privateKey
}

export const publicKeyPem = (key: KeyObject): string => createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString()
