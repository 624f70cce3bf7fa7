import fs from 'node:fs'
import { audit, cliContext } from '../../src/audit/log.js'
import { Args, Flags } from '@oclif/core'
import { LecternCommand } from '../../cli/run.js'
import type { EmbedderSettings } from '../../src/embed/types.js'
import { LecternError, isLecternError } from '../../src/errors.js'
import { switchEmbedding } from '../../src/jobs/reembed.js'
import { dataPaths } from '../../src/install/paths.js'
import { SETTINGS, writeSetting, type StoredSettingSpec } from '../../src/settings.js'
import type { Store } from '../../src/store/index.js'
import { acquireDataDirLock } from '../../src/store/lock.js'
import { setRestrictNewLibraries } from '../../src/tenancy/library-access.js'

const PROVIDERS = ['hash', 'ollama', 'openai'] as const

export default class ConfigSet extends LecternCommand {
  static override summary = 'Change a setting; a running server picks it up at once.'
  static override description = `Settings:

${(Object.entries(SETTINGS) as Array<[string, StoredSettingSpec<unknown>]>)
    .map(([name, spec]) => `${name} (default ${JSON.stringify(spec.show(spec.default))}): ${spec.description}`)
    .join('\n\n')}

embedding.provider (default "hash"): hash, ollama or openai, with --model, --host, --api-key-env. The provider is probed with one text first; then every library is re-embedded in the background (a running server's worker does it, or \`lectern config reembed --wait\`), each switching when complete.

Start-up settings (server.port, log.level...) are not stored: give them as flags, environment variables or in lectern.yaml (\`lectern config get\` lists them).`
  static override examples = [
    '<%= config.bin %> <%= command.id %> mcp.requireKey true',
    '<%= config.bin %> <%= command.id %> embedding.provider ollama --model nomic-embed-text --host http://127.0.0.1:11434',
    '<%= config.bin %> <%= command.id %> embedding.provider openai --model BAAI/bge-small-en-v1.5 --host http://127.0.0.1:8000/v1 --api-key-env OPENAI_API_KEY',
  ]
  static override enableJsonFlag = true
  static override args = {
    name: Args.string({ description: 'Setting name.', required: true }),
    value: Args.string({ description: 'New value.', required: true }),
  }
  static override flags = {
    model: Flags.string({ summary: 'embedding.provider: the model name.' }),
    host: Flags.string({ summary: 'embedding.provider: base URL of the Ollama or OpenAI-compatible server.' }),
    'api-key-env': Flags.string({ summary: 'embedding.provider openai: the environment variable holding the API key.' }),
    dimensions: Flags.integer({ summary: 'embedding.provider hash: vector dimension.' }),
  }

  async run(): Promise<{ name: string; value: unknown }> {
    const { args, flags } = await this.parse(ConfigSet)
    if (args.name === 'embedding.provider') return this.setEmbedding(args.value, flags)
    if (flags.model || flags.host || flags['api-key-env'] || flags.dimensions) {
      throw new LecternError('validation_error', '--model, --host, --api-key-env and --dimensions belong to embedding.provider.')
    }
    const result = args.name === 'install.mode' ? await this.switchMode(args.value, flags) : await this.withRuntime(flags, 'write', async (rt) => await writeAudited(rt.store, args.name, args.value))
    this.log(`${result.name} = ${JSON.stringify(result.value)}`)
    return result
  }

  /**
   * The switch holds the data directory's lock, so it is refused while a server runs (that server
   * would go on in the old mode, its worker running jobs under the old mode's rules) and no server
   * starts halfway through it.
   */
  private async switchMode(value: string, flags: { 'data-dir'?: string; config?: string }): Promise<{ name: string; value: unknown }> {
    const paths = dataPaths(this.resolveConfig(flags).config.dataDir)
    const lock = (() => {
      try {
        return fs.existsSync(paths.database) ? acquireDataDirLock(paths.lock, paths.root) : undefined
      } catch (err) {
        if (isLecternError(err) && err.code === 'data_dir_locked') throw new LecternError('data_dir_locked', `Switching install.mode needs the server stopped. ${err.message}`)
        throw err
      }
    })()
    try {
      return await this.withRuntime(flags, 'write', async (rt) => await writeAudited(rt.store, 'install.mode', value), {}, { switchingMode: true })
    } finally {
      lock?.release()
    }
  }

  private async setEmbedding(
    provider: string,
    flags: { 'data-dir'?: string; config?: string; model?: string; host?: string; 'api-key-env'?: string; dimensions?: number },
  ): Promise<{ name: string; value: unknown }> {
    if (!(PROVIDERS as readonly string[]).includes(provider)) throw new LecternError('validation_error', `Unknown embedding provider "${provider}"; use ${PROVIDERS.join(', ')}.`)
    let apiKey: string | undefined
    if (flags['api-key-env']) {
      apiKey = process.env[flags['api-key-env']]
      if (!apiKey) throw new LecternError('validation_error', `The environment variable ${flags['api-key-env']} is not set.`)
    }
    const settings: EmbedderSettings = {
      provider: provider as EmbedderSettings['provider'],
      ...(flags.model ? { model: flags.model } : {}),
      ...(flags.host ? { host: flags.host } : {}),
      ...(apiKey ? { apiKey } : {}),
      ...(flags.dimensions ? { dimensions: flags.dimensions } : {}),
    }
    const result = await this.withRuntime(flags, 'write', async (rt) => {
      const switched = await switchEmbedding(rt.store, rt.embedders, settings)
      await audit(rt.store, cliContext(), 'settings.changed', 'embedding', { provider: switched.provider, model: switched.model, dimensions: switched.dimensions })
      const message = `embedding = ${switched.provider} ${switched.model} (${switched.dimensions} dimensions)`
      if (switched.queuedSets === 0) this.log(`${message}.`)
      else await this.reportQueued(rt, `${message}; queued re-embedding of ${switched.queuedSets} snippet sets.`)
      return switched
    })
    return { name: 'embedding', value: { ...result, ...(flags.host ? { host: flags.host } : {}) } }
  }
}

/**
 * Sets a stored setting and records the change: its name and the value as `config get` shows it
 * (no stored setting holds a secret). The default access of libraries is an access rule, set
 * (and recorded) as the dashboard sets it.
 */
async function writeAudited(store: Store, name: string, text: string): Promise<{ name: string; value: unknown }> {
  if (name === 'access.restrictNewLibraries') {
    const value = SETTINGS[name].parse(text)
    await setRestrictNewLibraries(store, cliContext(), value)
    return { name, value }
  }
  return await store.transaction(async () => {
    const result = await writeSetting(store.settings, name, text)
    await audit(store, cliContext(), 'settings.changed', result.name, { value: result.value })
    return result
  })
}
