/**
 * Writes oclif.manifest.json, run by `npm run build` after tsc. With it oclif lists the commands,
 * renders --help and finds a command's file without importing every command module; without it,
 * each start imports them all (and everything they import) just to build that list.
 *
 * This is what the `oclif manifest` command of the oclif CLI does, through @oclif/core's public
 * Plugin class, without that CLI's dependencies. A command that fails to load fails the build
 * rather than going missing from the manifest.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Plugin } from '@oclif/core'

const root = fileURLToPath(new URL('../../', import.meta.url))
const plugin = new Plugin({ root, isRoot: true, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true })
await plugin.load()
const file = path.join(root, 'oclif.manifest.json')
fs.writeFileSync(file, `${JSON.stringify(plugin.manifest, null, 2)}\n`)
console.log(`Wrote ${Object.keys(plugin.manifest.commands).length} commands to ${path.relative(process.cwd(), file) || file}`)
