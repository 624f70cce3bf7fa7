/**
 * Preloaded with `node --import` (test/integration/cli-startup.test.ts): records the URL of every
 * module the process imports, one a line, in the file that RECORD_IMPORTS names, so a test can
 * tell what a command loaded. Plain JavaScript because node loads it before anything is compiled.
 */
import { register } from 'node:module'

register('./record-imports-hooks.mjs', import.meta.url, { data: { file: process.env.RECORD_IMPORTS } })
