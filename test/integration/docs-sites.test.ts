/**
 * Docs sites as their readers see them, end to end through real git and HTTP: an MkDocs project
 * whose pages pull their code from `docs_src/` (the FastAPI family), and a Sphinx project whose
 * pages are `.txt` reStructuredText (Django), with release notes beside them.
 */
import type { FastifyInstance } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ContextResponse } from '../../src/index/render.js'
import { addRepo, buildTestApp, createKey, waitForLibrary } from '../helpers/app.js'
import { makeGitRepo, redirectGitHub, symlinkTo } from '../helpers/git.js'
import { suiteTeardown, tmpDir } from '../helpers/tmp.js'

const defer = suiteTeardown()
let app: FastifyInstance

const TUTORIAL = 'import typer\n\n\ndef main(name: str, lastname: str = ""):\n    print(f"Hello {name} {lastname}")\n\n\nif __name__ == "__main__":\n    typer.run(main)\n'

const typerFiles = {
  'README.md': '# Typer\n\nTyper builds command line interfaces from Python type hints, with completion and help generated for you.\n',
  'mkdocs.yml': 'site_name: Typer\nmarkdown_extensions:\n  - admonition\n  - pymdownx.snippets\n',
  'docs/tutorial/options.md': [
    '# CLI Options',
    '',
    '## Add an option with a default',
    '',
    'A parameter with a default value becomes a `--lastname` option on the command line:',
    '',
    '{* docs_src/options/tutorial001.py hl[4] *}',
    '',
    '!!! tip "Check it"',
    '    Run the program with `--help` to see the option listed with its default value and the type that Typer derived from the hint.',
    '',
  ].join('\n'),
  'docs/tutorial/escape.md': '# Escape\n\n## Outside\n\n{* ../../../../etc/passwd *}\n\n{* docs_src/missing.py *}\n\n{* docs_src/leak.py *}\n',
  'docs_src/options/tutorial001.py': TUTORIAL,
  'docs_src/leak.py': symlinkTo('/etc/hostname'),
}

const djangoFiles = {
  'docs/conf.py': "project = 'Django'\nsource_suffix = '.txt'\n",
  'docs/topics/db/queries.txt': [
    '=================',
    'Making queries',
    '=================',
    '',
    'Filtering rows',
    '==============',
    '',
    'To narrow a QuerySet down to the rows you want, chain ``filter()`` calls with field lookups::',
    '',
    '    Entry.objects.filter(pub_date__year=2006).exclude(headline__startswith="What")',
    '',
  ].join('\n'),
  'docs/releases/5.0.txt': 'Django 5.0 release notes\n========================\n\nFiltering rows with filter() got faster in this release of the framework, along with other changes.\n',
}

beforeAll(async () => {
  const remotes = await tmpDir('lectern-remotes-', defer)
  await makeGitRepo(typerFiles, { parent: remotes, name: 'typer' })
  await makeGitRepo(djangoFiles, { parent: remotes, name: 'django' })
  redirectGitHub(remotes, defer)
  app = await buildTestApp({ defer })
  const key = await createKey(app)
  for (const name of ['typer', 'django']) expect((await addRepo(app, key, `https://github.com/acme/${name}`)).statusCode).toBe(200)
  for (const name of ['typer', 'django']) {
    const version = await waitForLibrary(app, `/acme/${name}`)
    expect(version, version.errorMessage ?? '').toMatchObject({ state: 'finalized' })
  }
})

async function answer(libraryId: string, query: string): Promise<ContextResponse> {
  const res = await app.inject({ url: '/api/v2/context', query: { libraryId, query, type: 'json' } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

describe('an MkDocs project with included examples', () => {
  it('answers with the included code, in its language, titled by the page heading', async () => {
    const { codeSnippets } = await answer('/acme/typer', 'give my command an optional flag with a default value')
    const included = codeSnippets.find((s) => s.codeList[0].code.includes('typer.run(main)'))
    expect(included).toMatchObject({ codeTitle: 'Add an option with a default', codeLanguage: 'python' })
    expect(included!.codeList[0].code).toBe(TUTORIAL.trimEnd())
    expect(included!.codeId).toMatch(/docs\/tutorial\/options\.md#add-an-option-with-a-default$/)
  })

  it('reads the admonition as prose and never includes anything from outside the repository', async () => {
    const { infoSnippets, codeSnippets } = await answer('/acme/typer', 'how do I see the options of the program')
    expect(infoSnippets.map((s) => s.content).join('\n')).toContain('Tip: Check it')
    const everything = JSON.stringify(await answer('/acme/typer', 'escape outside passwd hostname leak'))
    expect(everything).not.toMatch(/root:x:0|\/bin\/(ba)?sh/)
    expect(codeSnippets.every((s) => !s.codeList[0].code.includes('--8<--'))).toBe(true)
  })
})

describe('a Sphinx project with .txt pages', () => {
  it('parses the pages as reStructuredText, with Python as the literal block language and docutils anchors', async () => {
    const { codeSnippets } = await answer('/acme/django', 'only get the rows from a given year')
    expect(codeSnippets[0]).toMatchObject({ codeTitle: 'Filtering rows', codeLanguage: 'python' })
    expect(codeSnippets[0].codeId).toMatch(/docs\/topics\/db\/queries\.txt#filtering-rows$/)
  })

  it('leaves the release notes out', async () => {
    const all = JSON.stringify(await answer('/acme/django', 'filter rows faster release notes'))
    expect(all).not.toContain('releases/5.0')
  })
})
