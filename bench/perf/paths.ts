/** Where the benchmark keeps what it builds once and reuses: `bench/.work/` (gitignored). */
import { fileURLToPath } from 'node:url'

/** The bench runs from dist/bench/perf/, three levels below the package root. */
export const WORK_DIR = fileURLToPath(new URL('../../../bench/.work/', import.meta.url))

/** The compiled sibling module `name` (e.g. a child-process entry point). */
export const siblingModule = (name: string): string => fileURLToPath(new URL(`./${name}.js`, import.meta.url))

/** The package root, where `bin/run.js` starts the product. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url))
