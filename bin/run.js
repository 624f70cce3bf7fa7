#!/usr/bin/env node
import { fileURLToPath } from 'node:url'
import { execute } from '@oclif/core'

// Lectern has no plugin system: without userPlugins: false, oclif would read a package.json of
// "user plugins" from its own data directory, which it takes from LECTERN_DATA_DIR, the variable
// that names Lectern's data directory.
await execute({ loadOptions: { root: fileURLToPath(import.meta.url), userPlugins: false } })
