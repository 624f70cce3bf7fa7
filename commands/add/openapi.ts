import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { Args, Flags } from '@oclif/core'
import { AddSourceCommand, type AddSourceResult } from '../../cli/add-source.js'
import { LecternError } from '../../src/errors.js'
import { submitOpenApiUpload, submitOpenApiUrl } from '../../src/jobs/submit-openapi.js'
import type { Submitted } from '../../src/jobs/submit.js'
import { checkUploadSize } from '../../src/sources/uploads.js'
import type { Store } from '../../src/store/index.js'

export default class AddOpenApi extends AddSourceCommand {
  static override summary = 'Add a library from an OpenAPI (or Swagger 2.0) spec, by URL or local file.'
  static override description = `Queues a job that validates the spec and turns each operation into a snippet with a curl example and the shape of its answer. A local file is copied into the data directory's uploads/ folder, so the library can be refreshed without it.

Library IDs: /docs/<host-path> for a URL (https://api.example.com/v3/openapi.json -> /docs/api.example.com-v3-openapi), /docs/<title or file name> for a file.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> https://petstore3.swagger.io/api/v3/openapi.json --wait',
    '<%= config.bin %> <%= command.id %> ./billing-api.yaml --title "Billing API" --force',
  ]
  static override enableJsonFlag = true
  static override args = { source: Args.string({ description: 'URL of the spec, or path to a local .json/.yaml/.yml file.', required: true }) }
  static override flags = {
    title: Flags.string({ summary: 'Library title; for a file, also the library ID\'s name.' }),
    description: Flags.string({ summary: 'Library description (default: the spec\'s first sentence).' }),
    force: Flags.boolean({ summary: 'Re-ingest when the library already exists.' }),
    wait: Flags.boolean({ char: 'w', summary: 'Wait until the library is searchable, showing progress.' }),
  }

  async run(): Promise<AddSourceResult> {
    const { args, flags } = await this.parse(AddOpenApi)
    return this.withRuntime(flags, 'write', async (runtime) => {
      return this.follow(runtime, await submit(runtime.store, args.source, flags), flags.wait)
    })
  }
}

async function submit(store: Store, source: string, flags: { title?: string; description?: string; force: boolean }): Promise<Submitted> {
  if (/^https?:\/\//i.test(source)) return await submitOpenApiUrl(store, { url: source, ...flags })
  // Checked before reading, so a huge file is refused without loading it.
  const info = await stat(source).catch(() => {
    throw new LecternError('validation_error', `No such file: ${source}`)
  })
  if (!info.isFile()) throw new LecternError('validation_error', `${source} is not a file.`)
  checkUploadSize(info.size)
  return submitOpenApiUpload(store, { data: await readFile(source), fileName: path.basename(source), ...flags })
}
