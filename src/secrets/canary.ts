/**
 * An encrypted canary in the settings table: a known text sealed with secret.key. A restore opens
 * it with the restored key before moving anything, so a database and key that do not belong
 * together are refused instead of leaving every stored credential unreadable.
 */
import type { SettingsRepository } from '../store/settings.js'
import { SETTING_KEYS } from '../store/settings.js'
import type { SecretBox } from './cipher.js'

export const CANARY_SETTING = SETTING_KEYS.secretsCanary
const CANARY_TEXT = 'lectern secrets canary'

export async function ensureSecretsCanary(settings: SettingsRepository, box: SecretBox): Promise<void> {
  if (await settings.get<string>(CANARY_SETTING) === undefined) await settings.set(CANARY_SETTING, box.seal(CANARY_TEXT))
}

/** Whether `sealed` is this deployment's canary sealed with the key inside `box`. */
export function opensCanary(sealed: string, box: SecretBox): boolean {
  try {
    return box.open(sealed) === CANARY_TEXT
  } catch {
    return false
  }
}
