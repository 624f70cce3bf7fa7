/**
 * The extraction report end to end, through the real binary, real git and the HTTP API: a docs
 * site laid out as FastAPI's (pages under docs/en/docs, examples under docs_src/ included
 * relative to docs/en, the folder of mkdocs.yml) and a page written as React's (`{/*id*\/}`
 * heading ids in a `.md` file), with one include that names a file the repository lacks.
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import type { ExtractionView } from '../../src/extraction/view.js'
import type { JobLogLine } from '../../src/store/job-logs.js'
import { buildTestApp, createKey } from '../helpers/app.js'
import { runCli } from '../helpers/cli.js'
import { git, gitRedirectEnv, makeGitRepo } from '../helpers/git.js'
import { signIn } from '../helpers/session.js'
import { suiteTeardown, tmpDataDir, tmpDir } from '../helpers/tmp.js'

vi.setConfig({ testTimeout: 120_000 })

const defer = suiteTeardown()
let gitEnv: Record<string, string>
let dataDir: string
let remotes: string

const CORS_EXAMPLE = [
  'from fastapi import FastAPI',
  'from fastapi.middleware.cors import CORSMiddleware',
  '',
  'app = FastAPI()',
  '',
  'app.add_middleware(',
  '    CORSMiddleware,',
  '    allow_origins=["https://example.com"],',
  '    allow_credentials=True,',
  ')',
  '',
].join('\n')

const site = {
  'README.md': '# FastAPI\n\nFastAPI is a modern web framework for building APIs with Python based on standard type hints.\n',
  'docs/en/mkdocs.yml': 'site_name: FastAPI\nsite_description: FastAPI framework, high performance, easy to learn\ndocs_dir: docs\n',
  'docs/en/docs/tutorial/cors.md': [
    '# CORS (Cross-Origin Resource Sharing)',
    '',
    '## Use `CORSMiddleware`',
    '',
    'Import `CORSMiddleware`, create a list of allowed origins and add it to your application as a middleware:',
    '',
    '{* ../../docs_src/cors/tutorial001_py310.py hl[2,6:11] *}',
    '',
    '## An example that moved',
    '',
    'The example of this section is no longer in the repository, so this section has no code:',
    '',
    '{* ../../docs_src/cors/tutorial002_py310.py *}',
    '',
  ].join('\n'),
  'docs/en/docs/learn/effects.md': [
    '# You Might Not Need an Effect',
    '',
    '### My Effect runs twice {/*my-effect-runs-twice*/}',
    '',
    'In development, React mounts every component twice to find bugs, so an Effect runs its setup twice:',
    '',
    '```js',
    'useEffect(() => {',
    '  const connection = createConnection()',
    '  connection.connect()',
    '  return () => connection.disconnect()',
    '}, [])',
    '```',
    '',
  ].join('\n'),
  'docs_src/cors/tutorial001_py310.py': CORS_EXAMPLE,
}

/** An Antora site: before AsciiDoc was read, its job failed with no_code_found. */
const antora = {
  'docs/antora.yml': 'name: widgets\ntitle: Widgets\nversion: ~\n',
  'docs/modules/ROOT/pages/index.adoc': [
    '= Widgets',
    '',
    '== Draw a chart',
    '',
    'Create a chart from your data and draw it on a canvas:',
    '',
    '[source,java]',
    '----',
    'include::example$Chart.java[tag=draw]',
    '----',
    '',
  ].join('\n'),
  'docs/modules/ROOT/examples/Chart.java': 'class Example {\n  // tag::draw[]\n  Chart chart = Chart.of(data);\n  chart.drawOn(canvas);\n  // end::draw[]\n}\n',
}

beforeAll(async () => {
  remotes = await tmpDir('lectern-remotes-', defer)
  await makeGitRepo(site, { parent: remotes, name: 'fastapi' })
  await makeGitRepo(antora, { parent: remotes, name: 'widgets' })
  // Pages whose only text is too short to be a snippet.
  await makeGitRepo({ 'docs/index.md': '# Stubs\n\nComing soon.\n', 'docs/guide.md': '# Guide\n\nTo be written.\n' }, { parent: remotes, name: 'stubs' })
  gitEnv = gitRedirectEnv(remotes)
  dataDir = await tmpDataDir(defer)
  const added = await runCli(['add', 'https://github.com/acme/fastapi', '--wait', '--data-dir', dataDir], gitEnv)
  expect(added.exitCode, added.stderr).toBe(0)
  expect(added.stdout).toContain('With warnings: 1 include that read no file. See them: lectern inspect /acme/fastapi')
})

const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir], gitEnv)

describe('lectern inspect', () => {
  it('prints the report, the include that read no file first, with where it stands and the paths tried', async () => {
    const { exitCode, stdout, stderr } = await cli(['inspect', '/acme/fastapi'])
    expect(exitCode, stderr).toBe(0)
    expect(stdout).toMatch(/Pages:\s+3 read, 0 could not be parsed, 0 with text but no snippet/)
    expect(stdout).toMatch(/Includes:\s+2 found, 1 read, 1 read no file/)
    expect(stdout).toContain('Includes that read no file (1)')
    expect(stdout).toMatch(/docs\/en\/docs\/tutorial\/cors\.md:13\s+\.\.\/\.\.\/docs_src\/cors\/tutorial002_py310\.py\s+not found \(tried docs\/en\/docs_src\/cors\/tutorial002_py310\.py, docs_src\/cors\/tutorial002_py310\.py/)
    expect(stdout).not.toContain('Titles with markup')
    expect(stdout).not.toContain('Links to anchors')
  })

  it('gives the same report as JSON', async () => {
    const { exitCode, stdout } = await cli(['inspect', '/acme/fastapi', '--json'])
    expect(exitCode).toBe(0)
    const view = JSON.parse(stdout) as ExtractionView
    expect(view).toMatchObject({ libraryId: '/acme/fastapi', jobId: expect.any(Number), createdAt: expect.any(String) })
    expect(view.report).toMatchObject({
      pages: 3,
      includes: { found: 2, resolved: 1, unresolved: { count: 1, items: [{ page: 'docs/en/docs/tutorial/cors.md', line: 13, reference: '../../docs_src/cors/tutorial002_py310.py', problem: 'not found' }] } },
      titlesWithMarkup: { count: 0 },
      undefinedAnchors: { count: 0 },
      pagesSkipped: { count: 0 },
    })
  })

  it('says a library has no report when no ingest wrote one, and refuses an unknown library', async () => {
    const failed = await cli(['add', 'https://github.com/acme/missing', '--wait'])
    expect(failed.exitCode).not.toBe(0)
    const none = await cli(['inspect', '/acme/missing'])
    expect(none.exitCode, none.stderr).toBe(0)
    // Its ingest failed: the report says so, not that the version was imported.
    expect(none.stdout).toMatch(/^\/acme\/missing has no extraction report: no ingest of it has read its pages \(the last one failed: source_unreachable\)/)
    const json = JSON.parse((await cli(['inspect', '/acme/missing', '--json'])).stdout) as ExtractionView
    expect(json).toMatchObject({ libraryId: '/acme/missing', state: 'error', errorCode: 'source_unreachable', report: null })
    const unknown = await cli(['inspect', '/acme/nothing'])
    expect(unknown.exitCode).toBe(4)
    expect(unknown.stderr).toContain('/acme/nothing')
    // A version that is not there lists the ones that are, as /api/v2/context does.
    const version = await cli(['inspect', '/acme/fastapi', '--version', 'v9'])
    expect([version.exitCode, version.stderr]).toEqual([4, expect.stringContaining('Version "v9" of /acme/fastapi not found. The library has no versions besides its default branch. (tag_not_found)')])
  })
})

describe('the ingest', () => {
  it('indexes the example included from the folder of mkdocs.yml, and the React page with clean titles and its own anchors', async () => {
    const cors = await cli(['docs', '/acme/fastapi', 'allow cross origin requests from my frontend', '--json'])
    expect(cors.exitCode, cors.stderr).toBe(0)
    expect(cors.stdout).toContain('allow_origins=[\\"https://example.com\\"]')
    const effect = await cli(['docs', '/acme/fastapi', 'why does my effect run twice', '--json'])
    const answer = JSON.parse(effect.stdout) as { codeSnippets: Array<{ codeTitle: string; codeId: string }> }
    expect(answer.codeSnippets[0].codeTitle).toBe('My Effect runs twice')
    expect(answer.codeSnippets[0].codeId).toMatch(/docs\/en\/docs\/learn\/effects\.md#my-effect-runs-twice$/)
  })

  it("takes the library's title and description from the site's mkdocs.yml, not the repository's name and README", async () => {
    const listed = await cli(['libraries', 'list', '--json'])
    expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ id: '/acme/fastapi', title: 'FastAPI', description: 'FastAPI framework, high performance, easy to learn' }))
  })

  it('reads an Antora site of AsciiDoc pages, its examples included by resource ID, with no warnings', async () => {
    const added = await cli(['add', 'https://github.com/acme/widgets', '--wait'])
    expect(added.exitCode, added.stderr).toBe(0)
    expect(added.stdout).not.toContain('With warnings')
    const answer = await cli(['docs', '/acme/widgets', 'draw a chart on a canvas', '--json'])
    const { codeSnippets } = JSON.parse(answer.stdout) as { codeSnippets: Array<{ codeTitle: string; codeId: string; codeLanguage: string; codeList: Array<{ code: string }> }> }
    expect(codeSnippets[0]).toMatchObject({ codeTitle: 'Draw a chart', codeLanguage: 'java', codeList: [{ code: 'Chart chart = Chart.of(data);\nchart.drawOn(canvas);' }] })
    expect(codeSnippets[0].codeId).toMatch(/docs\/modules\/ROOT\/pages\/index\.adoc#_draw_a_chart$/)
    const report = JSON.parse((await cli(['inspect', '/acme/widgets', '--json'])).stdout) as ExtractionView
    expect(report.report).toMatchObject({ pages: 1, includes: { found: 1, resolved: 1 } })
    const listed = JSON.parse((await cli(['libraries', 'list', '--json'])).stdout) as Array<{ id: string; title: string }>
    expect(listed.find((l) => l.id === '/acme/widgets')?.title).toBe('Widgets')
  })

  it('ends as succeeded with warnings: in lectern jobs, and in its log at warn level', async () => {
    const jobs = await cli(['jobs', '--json'])
    const view = JSON.parse(jobs.stdout) as { recentWarnings: Array<{ project: string; jobId: number; warnings: number; message: string }> }
    expect(view.recentWarnings).toEqual([expect.objectContaining({ project: '/acme/fastapi', warnings: 1, message: expect.stringContaining('with warnings: 1 include that read no file (lectern inspect /acme/fastapi)') })])
    const text = await cli(['jobs'])
    expect(text.stdout).toContain('Succeeded with warnings')

    const app = await buildTestApp({ dataDir, startWorker: false, defer })
    const cookie = await signIn(app)
    const log = await app.inject({ url: `/api/jobs/${view.recentWarnings[0].jobId}/log`, cookies: cookie })
    const lines = (log.json() as { lines: JobLogLine[] }).lines
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringMatching(/^include "\.\.\/\.\.\/docs_src\/cors\/tutorial002_py310\.py" at docs\/en\/docs\/tutorial\/cors\.md:13 read no file: not found \(tried /) }))
  })
})

describe('GET /api/libraries/:owner/:name/extraction', () => {
  it('serves the report to admins only; an unknown library or version is 404', async () => {
    const app = await buildTestApp({ dataDir, startWorker: false, defer })
    const admin = await signIn(app)
    const res = await app.inject({ url: '/api/libraries/acme/fastapi/extraction', cookies: admin })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toMatchObject({ libraryId: '/acme/fastapi', report: { includes: { found: 2, resolved: 1 } } })

    const member = await signIn(app, 'member')
    expect((await app.inject({ url: '/api/libraries/acme/fastapi/extraction', cookies: member })).statusCode).toBe(403)
    const key = await createKey(app)
    expect((await app.inject({ url: '/api/libraries/acme/fastapi/extraction', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(401)
    expect((await app.inject({ url: '/api/libraries/acme/fastapi/extraction' })).statusCode).toBe(401)

    const unknown = await app.inject({ url: '/api/libraries/acme/nothing/extraction', cookies: admin })
    expect([unknown.statusCode, unknown.json().error]).toEqual([404, 'library_not_found'])
    const version = await app.inject({ url: '/api/libraries/acme/fastapi/extraction?version=v9', cookies: admin })
    expect([version.statusCode, version.json().error]).toEqual([404, 'tag_not_found'])
  })
})

describe('an ingest whose pages give no snippet', () => {
  it('fails with no_code_found naming how many pages it read, and keeps its report, which says what each gave', async () => {
    const failed = await cli(['add', 'https://github.com/acme/stubs', '--wait'])
    expect(failed.exitCode).toBe(6)
    expect(failed.stderr).toContain('No documentation or code snippets were found in the source (2 pages read: 0 could not be parsed, 0 with text but no snippet, 2 without a paragraph of prose or a code block); `lectern inspect /acme/stubs` shows what each gave. (no_code_found)')
    const shown = await cli(['inspect', '/acme/stubs'])
    expect(shown.exitCode, shown.stderr).toBe(0)
    expect(shown.stdout).toMatch(/Ingest:\s+job \d+, .*: failed \(no_code_found\), the version serves no snippets/)
    expect(shown.stdout).toMatch(/Pages:\s+2 read, 0 could not be parsed, 0 with text but no snippet/)
    expect(shown.stdout).toContain('No page holds a paragraph of prose (20 words or more) or a code block: stubs, tables of contents and lists of links give no snippet.')
    expect(shown.stdout).not.toContain('Nothing went wrong')
    const json = JSON.parse((await cli(['inspect', '/acme/stubs', '--json'])).stdout) as ExtractionView
    expect(json).toMatchObject({ state: 'error', errorCode: 'no_code_found', jobId: expect.any(Number), report: { pages: 2, snippets: 0 } })
  })

  // Last in the file: it changes the repository the tests above read.
  it('leaves a version that serves snippets its report: the report describes what its answers come from', async () => {
    const before = JSON.parse((await cli(['inspect', '/acme/fastapi', '--json'])).stdout) as ExtractionView
    const repo = path.join(remotes, 'fastapi')
    await git(['rm', '-q', '-r', 'docs', 'docs_src', 'README.md'], repo)
    await writeFile(path.join(repo, 'README.md'), '# FastAPI\n\nMoved.\n')
    await git(['add', '-A'], repo)
    await git(['commit', '-q', '-m', 'moved'], repo)
    const refreshed = await cli(['refresh', '/acme/fastapi', '--wait'])
    expect(refreshed.exitCode).toBe(6)
    expect(refreshed.stderr).toContain('No documentation or code snippets were found in the source (1 page read: 0 could not be parsed, 0 with text but no snippet, 1 without a paragraph of prose or a code block); the live snippets stay. (no_code_found)')
    const after = JSON.parse((await cli(['inspect', '/acme/fastapi', '--json'])).stdout) as ExtractionView
    expect(after).toEqual({ ...before, errorCode: 'no_code_found' })
  })
})
