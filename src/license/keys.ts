/**
 * The Ed25519 keys of licensing. An install verifies with a configured public key
 * (`LECTERN_LICENSE_PUBLIC_KEY`, PEM or base64 of the 32 raw bytes, else the
 * `license.publicKeyFile` setting). The cloud signs with its own private key, generated on
 * first use and kept sealed with the data directory's secret key, never in plain text.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto'
import fs from 'node:fs'
import { LecternError } from '../errors.js'
import { readSetting } from '../settings.js'
import type { Store } from '../store/index.js'

export const PUBLIC_KEY_ENV = 'LECTERN_LICENSE_PUBLIC_KEY'
const SIGNING_KEY_SETTING = 'license.signingKey'
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

/** The configured verifying key, or undefined when none is configured. */
export function configuredPublicKey(store: Store, env: NodeJS.ProcessEnv = process.env): KeyObject | undefined {
  const fromEnv = env[PUBLIC_KEY_ENV]
  if (fromEnv?.trim()) return parsePublicKey(fromEnv)
  const file = readSetting(store.settings, 'license.publicKeyFile')
  if (!file) return undefined
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (err) {
    throw new LecternError('validation_error', `Cannot read the license public key file ${file}: ${(err as Error).message}.`)
  }
  return parsePublicKey(text)
}

/** The cloud's signing key, created and stored sealed the first time it is needed. */
export function signingKey(store: Store): KeyObject {
  const sealed = store.settings.get<string>(SIGNING_KEY_SETTING)
  if (sealed !== undefined) return createPrivateKey(store.secrets.open(sealed))
  const { privateKey } = generateKeyPairSync('ed25519')
  store.settings.set(SIGNING_KEY_SETTING, store.secrets.seal(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()))
  return privateKey
}

export const publicKeyPem = (key: KeyObject): string => createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString()
