/** Flags shared by the commands; each reads its `LECTERN_*` environment variable. */
import { Flags } from '@oclif/core'

export const dataDirFlag = Flags.string({
  summary: 'Data directory (database, vector indexes, secret key).',
  env: 'LECTERN_DATA_DIR',
  default: './lectern-data',
})

export const modeFlag = Flags.string({
  summary: 'onprem (default) or cloud.',
  env: 'LECTERN_MODE',
  options: ['onprem', 'cloud'],
  default: 'onprem',
})
