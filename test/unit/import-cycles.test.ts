/**
 * No module imports itself through others: the whole program (src, server, cli, commands,
 * migrations, scripts, bench) is an acyclic graph, read from the TypeScript sources by madge.
 * Type-only and dynamic imports count too: a cycle of types is a tangle of concepts all the same.
 * Nor does any layer import one above it (docs/architecture.md, "What may import what").
 * madge is first shown to see through our ESM imports (`./x.js` naming `x.ts`) and to report a
 * cycle, so an empty list means none, not that nothing was resolved.
 */
import { readdirSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import madge from 'madge'
import { describe, expect, it } from 'vitest'
import { PROJECT_ROOT } from '../helpers/cli.js'
import { tmpDir } from '../helpers/tmp.js'

/** bench/.work/ holds what the benchmark builds (fetched docs repositories among them): not ours. */
const PROGRAM = ['src', 'server', 'cli', 'commands', 'migrations', 'scripts', ...readdirSync(path.join(PROJECT_ROOT, 'bench')).filter((name) => !name.startsWith('.')).map((name) => `bench/${name}`)]

async function graphOf(baseDir: string, dirs: string[]) {
  return madge(dirs.map((dir) => path.join(baseDir, dir)), { baseDir, fileExtensions: ['ts'], tsConfig: path.join(PROJECT_ROOT, 'tsconfig.json') })
}

let program: ReturnType<typeof graphOf> | undefined
/** The program's graph, read once for the tests that need it (a few seconds). */
const programGraph = () => (program ??= graphOf(PROJECT_ROOT, PROGRAM))

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
    const graph = await programGraph()
    // Every import of a project file resolved (a package madge cannot place is not ours to check).
    expect(graph.warnings().skipped.filter((name) => name.startsWith('.'))).toEqual([])
    expect(graph.obj()['src/store/index.ts']).toContain('src/store/db.ts')
    expect(graph.circular()).toEqual([])
  })

  it('never go up a layer: the core imports no server or CLI code, migrations nothing of the program', async () => {
    const graph = await programGraph()
    const upward = Object.entries(graph.obj()).flatMap(([from, imports]) =>
      imports.filter((to) => !allowed(from, to)).map((to) => `${from} -> ${to}`),
    )
    expect(upward).toEqual([])
  })

  it('keep the database inside the store: nothing else opens a connection or reads its driver', async () => {
    const graph = await programGraph()
    const reaching = Object.entries(graph.obj()).flatMap(([from, imports]) => (from.startsWith('src/store/') || from.startsWith('migrations/') ? [] : imports.filter((to) => to === 'src/store/db.ts').map(() => from)))
    // The archive check inspects a backup's copy of the database with the driver itself (issue 31: pg_restore's check in PostgreSQL mode).
    expect(reaching.filter((file) => !DATABASE_FILE_READERS.includes(file))).toEqual([])
    const driver = await Promise.all(
      Object.keys(graph.obj())
        .filter((file) => !file.startsWith('src/store/') && !file.startsWith('migrations/') && !DATABASE_FILE_READERS.includes(file))
        .map(async (file) => ((await readFile(path.join(PROJECT_ROOT, file), 'utf8')).match(/from 'better-sqlite3'|from 'knex'|\bsqliteOf\(/) ? file : undefined)),
    )
    expect(driver.filter(Boolean)).toEqual([])
  })
})

describe('the layers inside src/ (docs/architecture.md, "What may import what")', () => {
  it('hold: sources/ and parse/ reach no job, index or search; index/ and search/ no job or source; index/ no search', async () => {
    const graph = (await programGraph()).obj()
    const crossing = Object.entries(graph).flatMap(([from, imports]) => imports.filter((to) => forbidden(from, to)).map((to) => `${from} -> ${to}`))
    expect(crossing).toEqual([])
  })

  it('keep the store on leaf modules: nothing it reaches, however indirectly, is a part of the program built on it', async () => {
    const graph = (await programGraph()).obj()
    const reached = new Set<string>()
    const visit = (file: string) => {
      for (const to of graph[file] ?? []) {
        if (reached.has(to)) continue
        reached.add(to)
        visit(to)
      }
    }
    for (const file of Object.keys(graph).filter((f) => f.startsWith('src/store/'))) visit(file)
    const above = [...reached].filter((file) => /^src\/(jobs|search|index|sources|parse|embed|mcp|library|usage|airgap|extraction|tenancy)\//.test(file))
    expect(above).toEqual([])
  })
})

/** Whether an import crosses a rule between src/'s folders. */
function forbidden(from: string, to: string): boolean {
  const area = (file: string) => (file.startsWith('src/') ? file.split('/')[1] : undefined)
  const [a, b] = [area(from), area(to)]
  if (a === 'sources' || a === 'parse') return ['jobs', 'index', 'search'].includes(b ?? '')
  if (a === 'index') return ['jobs', 'sources', 'search'].includes(b ?? '')
  if (a === 'search') return ['jobs', 'sources'].includes(b ?? '')
  return false
}

/** Modules that read a SQLite file that is not the open store's, outside store/database-file.ts. */
const DATABASE_FILE_READERS = ['src/backup/check-database.ts']

/** Whether a module of one layer may import a module of another. */
function allowed(from: string, to: string): boolean {
  const layer = (file: string) => file.split('/')[0]
  if (layer(from) === 'migrations') return layer(to) === 'migrations'
  if (layer(from) === 'src') return ['src', 'migrations'].includes(layer(to))
  if (layer(from) === 'server') return ['src', 'server'].includes(layer(to))
  if (layer(from) === 'cli') return ['src', 'cli'].includes(layer(to))
  if (layer(from) === 'commands') return ['src', 'cli', 'commands'].includes(layer(to)) || (from === 'commands/serve.ts' && to === 'server/serve.ts')
  return true
}
