/**
 * `npm run eval:conformance -- [--details] [corpus ...]`: ingests each corpus of
 * bench/eval/conformance-corpora.json (prepared by `npm run eval:prepare -- --set conformance`)
 * with the built-in embedder and prints its extraction report's totals, one row per repository,
 * then the whole corpus's. The targets of issue 30 are zeros in four columns: unresolved includes
 * whose file exists, titles with markup, links to undefined anchors, and pages with text but no
 * snippet. `--details` lists each repository's findings (the first ten of each kind).
 */
import { existsSync } from 'node:fs'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { LOCAL } from '../../src/library/access.js'
import { resolveConfig } from '../../src/config.js'
import type { ExtractionReport } from '../../src/extraction/report.js'
import { extractionOf } from '../../src/extraction/view.js'
import { openRuntime, type Runtime } from '../../src/runtime.js'
import { EVAL_OWNER, redirectGitHub } from './corpora.js'
import { defaultReposRoot, loadManifest, manifestPath, selectCorpora } from './dev-corpora.js'

const COLUMNS = ['repository', 'toolchain', 'pages', 'snippets', 'includes', 'unresolved', 'of which the file exists', 'titles with markup', 'undefined anchors', 'pages without snippets', 'not rendered', 'code without language', 'duplicates'] as const

/**
 * Unresolved includes whose file is in the repository after all (a base folder Lectern does not
 * know): a file whose path ends with the include's path, `../` taken off.
 */
async function existingTargets(repo: string, report: ExtractionReport): Promise<number> {
  const files = await repositoryFiles(repo)
  let found = 0
  for (const item of report.includes.unresolved.items) {
    const target = item.reference.replace(/[:#{[].*$/, '').replace(/^(\.\.?\/)+/, '').replace(/^[@/]+/, '')
    if (target !== '' && files.some((file) => file === target || file.endsWith(`/${target}`))) found++
  }
  // Only the listed items are checked; scale to the whole count.
  const listed = report.includes.unresolved.items.length
  return listed === 0 ? 0 : Math.round((found / listed) * report.includes.unresolved.count)
}

async function repositoryFiles(repo: string): Promise<string[]> {
  return (await fs.readdir(repo, { recursive: true })).map((f) => String(f).split(path.sep).join('/')).filter((f) => !f.startsWith('.git/'))
}

function details(name: string, report: ExtractionReport): string {
  const lines = [`## ${name}`]
  const list = <T>(title: string, items: T[], show: (item: T) => string) => {
    if (items.length > 0) lines.push(`${title}:`, ...items.slice(0, 10).map((item) => `  - ${show(item)}`))
  }
  list('unresolved includes', report.includes.unresolved.items, (i) => `${i.page}:${i.line} ${i.reference}: ${i.problem}${i.tried ? ` (tried ${i.tried.slice(0, 4).join(', ')})` : ''}`)
  list('titles with markup', report.titlesWithMarkup.items, (t) => `${t.page}: ${t.title}`)
  list('undefined anchors', report.undefinedAnchors.items, (a) => `${a.page}#${a.anchor} (${a.title})`)
  list('pages without snippets', report.pagesWithoutSnippets.items, (p) => p.page)
  list('not rendered', report.notRendered.items, (t) => `${t.page}:${t.line} ${t.directive}`)
  list('pages skipped', report.pagesSkipped.items, (p) => `${p.page}: ${p.reason}`)
  return lines.join('\n')
}

async function main(argv: string[]): Promise<void> {
  const { values: options, positionals } = parseArgs({ args: argv, options: { details: { type: 'boolean', default: false } }, allowPositionals: true })
  const manifest = await loadManifest(manifestPath('conformance'))
  const corpora = selectCorpora(manifest, positionals)
  const prepared = defaultReposRoot('conformance')
  const missing = corpora.filter((c) => !existsSync(path.join(prepared, c.name, '.git'))).map((c) => c.name)
  if (missing.length > 0) throw new Error(`not prepared in ${prepared}: ${missing.join(', ')}. Run \`npm run eval:prepare -- --set conformance\` first (bench/eval/README.md).`)
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'lectern-conformance-'))
  const restoreEnv = redirectGitHub(prepared)
  let runtime: Runtime | undefined
  const rows: string[][] = []
  const totals = new Array<number>(COLUMNS.length - 2).fill(0)
  const found: string[] = []
  try {
    runtime = await openRuntime({ config: resolveConfig({ dataDir: path.join(workDir, 'data') }).config })
    const { submitRepository } = await import('../../src/jobs/submit.js')
    for (const corpus of corpora) {
      const started = Date.now()
      const { job } = await submitRepository(runtime.store, { sourceKind: 'github', docsRepoUrl: `https://github.com/${EVAL_OWNER}/${corpus.name}` }, runtime.guard)
      await runtime.worker.drain()
      const ended = await runtime.store.jobs.byPk(job.pk)
      const view = await extractionOf(runtime.store, `/${EVAL_OWNER}/${corpus.name}`, LOCAL)
      const report = view.report
      if (ended?.state !== 'succeeded' || !report) {
        rows.push([corpus.name, corpus.toolchain, `job ${ended?.state ?? 'missing'}: ${ended?.errorMessage ?? ''}`])
        continue
      }
      const values = [
        report.pages,
        report.snippets,
        report.includes.found,
        report.includes.unresolved.count,
        await existingTargets(path.join(prepared, corpus.name), report),
        report.titlesWithMarkup.count,
        report.undefinedAnchors.count,
        report.pagesWithoutSnippets.count,
        report.notRendered.count,
        report.codeWithoutLanguage.count,
        report.duplicatesDropped,
      ]
      values.forEach((v, i) => (totals[i] += v))
      rows.push([corpus.name, corpus.toolchain, ...values.map(String)])
      console.error(`${corpus.name}: ${((Date.now() - started) / 1000).toFixed(1)} s`)
      if (options.details) found.push(details(corpus.name, report))
    }
  } finally {
    await runtime?.close()
    restoreEnv()
    await fs.rm(workDir, { recursive: true, force: true })
  }
  rows.push(['**all**', '', ...totals.map(String)])
  console.log(`| ${COLUMNS.join(' | ')} |\n|${COLUMNS.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}`)
  if (found.length > 0) console.log(`\n${found.join('\n\n')}`)
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err)
  process.exitCode = 1
})
