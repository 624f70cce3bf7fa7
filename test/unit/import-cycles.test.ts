/**
 * No module imports itself through others: the whole program (src, server, cli, commands,
 * migrations, scripts, bench) is an acyclic graph, read from the TypeScript sources by madge.
 * Type-only and dynamic imports count too: a cycle of types is a tangle of concepts all the same.
 * madge is first shown to see through our ESM imports (`./x.js` naming `x.ts`) and to report a
 * cycle, so an empty list means none, not that nothing was resolved.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import madge from 'madge'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { tmpDir } from '../helpers/tmp.js'

const PROGRAM = ['src', 'server', 'cli', 'commands', 'migrations', 'scripts', 'bench']

async function graphOf(baseDir: string, dirs: string[]) {
  return madge(dirs.map((dir) => path.join(baseDir, dir)), { baseDir, fileExtensions: ['ts'], tsConfig: path.join(PROJECT_ROOT, 'tsconfig.json') })
}

describe('import cycles', () => {
  it('are found in a program that has one, through .js-suffixed imports of .ts files', async () => {
    const dir = await tmpDir('lectern-cycle-')
    await mkdir(path.join(dir, 'src'))
    await writeFile(path.join(dir, 'src/a.ts'), "import { b } from './b.js'\nexport const a = () => b\n")
    await writeFile(path.join(dir, 'src/b.ts'), "import type { Store } from './c.js'\nexport const b = (s?: Store) => s\n")
    await writeFile(path.join(dir, 'src/c.ts'), "export type Store = { load(): Promise<typeof import('./a.js')> }\n")
    const graph = await graphOf(dir, ['src'])
    expect(graph.obj()).toMatchObject({ 'src/a.ts': ['src/b.ts'], 'src/b.ts': ['src/c.ts'] })
    expect(graph.circular()).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']])
  })

  it('are absent from the program', async () => {
    const graph = await graphOf(PROJECT_ROOT, PROGRAM)
    // Every import of a project file resolved (a package madge cannot place is not ours to check).
    expect(graph.warnings().skipped.filter((name: string) => name.startsWith('.'))).toEqual([])
    expect(graph.obj()['src/store/index.ts']).toContain('src/store/db.ts')
    expect(graph.circular()).toEqual([])
  })
})
