/**
 * How long the engine takes to load one snippet set of 10,000 snippets in a fresh process state:
 * its rows' heads from SQLite and its engine file (lexical index and rendered snippets) written
 * when the set was built; and, for comparison, with the file missing (rebuilt from the rows, as
 * after a restore). Median of several loads.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { resolveConfig } from '../../src/config.js'
import { ingestSnippets } from '../../src/index/build.js'
import { engineFileKind, loadSet } from '../../src/index/loaded-set.js'
import { engineFilePath } from '../../src/install/paths.js'
import { openRuntime } from '../../src/runtime.js'
import { librarySnippets } from './docs.js'

export interface SetLoadResult {
  snippets: number
  fromFileMs: number
  fromRowsMs: number
  bytes: number
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

export async function benchSetLoad(snippets = 10_000, rounds = 5): Promise<SetLoadResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-set-load-'))
  const runtime = await openRuntime({ config: resolveConfig({ dataDir }).config })
  try {
    const { version } = await runtime.store.libraries.create({ id: '/bench/large', title: 'large', sourceKind: 'github', sourceUrl: 'https://github.com/bench/large' })
    const { setPk } = await ingestSnippets({ store: runtime.store, embedder: await runtime.embedders.current() }, { versionPk: version.pk, commitSha: null }, librarySnippets(0, snippets))
    const file = engineFilePath(runtime.store.paths, setPk)
    const time = async (prepare: () => void) => {
      const ms: number[] = []
      let bytes = 0
      let count = 0
      for (let i = 0; i < rounds; i++) {
        prepare()
        const started = performance.now()
        const { snippets } = runtime.store
        const loaded = await loadSet(setPk, await snippets.headsOfSet(setPk), engineFileKind((await snippets.set(setPk))!), file, () => snippets.allOfSet(setPk))
        ms.push(performance.now() - started)
        bytes = loaded.bytes
        count = loaded.snippets.length
      }
      return { ms: median(ms), bytes, count }
    }
    const fromFile = await time(() => {})
    const fromRows = await time(() => fs.rmSync(file, { force: true }))
    return { snippets: fromFile.count, fromFileMs: fromFile.ms, fromRowsMs: fromRows.ms, bytes: fromFile.bytes }
  } finally {
    await runtime.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}
