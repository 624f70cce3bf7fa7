/**
 * Settings keys no module reads, for tests that mark a data directory (to tell it from another
 * after a restore) or fill one (to make an archive large). The repository stores any key; its
 * type names only the app's own, so a test's key is converted here, in one place.
 */
import type { SettingKey } from '../../src/store/settings.js'

export const testSettingKey = (name: 'marker' | 'older' | 'bulk'): SettingKey => name as string as SettingKey
