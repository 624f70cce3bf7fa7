import fs from 'node:fs'
import { Args, Flags } from '@oclif/core'
import { modeFlag } from '../cli/flags.js'
import type { Mode } from '../src/config.js'
import { LecternCommand } from '../cli/run.js'
import { MAX_EXPORT_LIBRARIES, writeBundle } from '../src/airgap/bundle.js'
import { LOCAL } from '../src/library/access.js'
import { exportLibrary } from '../src/airgap/export.js'
import { LecternError } from '../src/errors.js'

export default class Export extends LecternCommand {
  static override summary = 'Export public libraries (cloud mode) as the dashboard bundle for an airgapped install.'
  static override description = `Writes one zip (default lectern-libraries.zip) with a manifest and every code and info snippet of each library, no embeddings; the install imports it with \`lectern import\` or POST /api/import-libraries. At most ${MAX_EXPORT_LIBRARIES} libraries per bundle. --json writes the raw import payload instead.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> /vercel/next.js /facebook/react -o lectern-libraries.zip',
    '<%= config.bin %> <%= command.id %> /vercel/next.js --json -o next.json',
  ]
  static override strict = false
  static override args = { libraryIds: Args.string({ description: 'Library IDs to export.', required: true }) }
  static override flags = {
    mode: modeFlag,
    output: Flags.string({ char: 'o', summary: 'Output file (default lectern-libraries.zip, or lectern-libraries.json with --json).' }),
    json: Flags.boolean({ summary: 'Write the import payload {libraries: [...]} as JSON instead of the zip.' }),
  }

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Export)
    const ids = argv as string[]
    if (this.resolveConfig(flags, { mode: flags.mode as Mode }).config.mode !== 'cloud') throw new LecternError('forbidden', 'Export is a cloud feature: run with --mode cloud (or LECTERN_MODE=cloud).')
    if (ids.length > MAX_EXPORT_LIBRARIES) {
      throw new LecternError('validation_error', `At most ${MAX_EXPORT_LIBRARIES} libraries per export; ${ids.length} were named. Export them in several bundles.`)
    }
    const output = flags.output ?? (flags.json ? 'lectern-libraries.json' : 'lectern-libraries.zip')
    const libraries = await this.withRuntime(flags, 'read', async (rt) => Promise.all(ids.map((id) => exportLibrary(rt.store, id, LOCAL))), { mode: 'cloud' })
    if (flags.json) fs.writeFileSync(output, JSON.stringify({ libraries }))
    else await writeBundle(output, libraries)
    const snippets = libraries.reduce((n, l) => n + l.codeSnippets.length + l.infoSnippets.length, 0)
    this.log(`Exported ${libraries.length} ${libraries.length === 1 ? 'library' : 'libraries'} (${snippets} snippets) to ${output}`)
  }
}
