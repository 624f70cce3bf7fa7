import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LecternError } from '../../src/errors.js'
import { MAX_FILES, defaultRepoConfig, discoverDocs, readRepoConfig, walkRepo, type RepoConfig } from '../../src/sources/discover.js'
import { tmpTree } from '../helpers/tmp.js'

const makeTree = (files: Record<string, string | Buffer>) => tmpTree(files, 'lectern-discover-')

async function discover(root: string, overrides: Partial<RepoConfig> = {}) {
  const logs: string[] = []
  const log = (msg: string) => logs.push(msg)
  const config = { ...(await readRepoConfig(root, log)), ...overrides }
  const files = await discoverDocs(root, config, log)
  return { files, paths: files.map((f) => f.path), logs, config }
}

const md = (title: string) => `# ${title}\n\nSome text.\n`

/** A repository laid out like a real one, with every kind of file discovery must refuse. */
const REALISTIC: Record<string, string | Buffer> = {
  'README.md': md('Widgets'),
  'README.zh-CN.md': md('Widgets (zh)'),
  'CHANGELOG.md': md('Changelog'),
  'CONTRIBUTING.md': md('Contributing'),
  'LICENSE': 'MIT',
  'llms.txt': '# Widgets\n',
  'requirements.txt': 'requests\n',
  'docs/intro.md': md('Intro'),
  'docs/setup.md': md('Setup'),
  'docs/guide.mdx': md('Guide'),
  'docs/api.rst': 'API\n===\n',
  'docs/notes.txt': 'Notes on widgets.\n',
  'docs/requirements.txt': 'sphinx\n',
  'docs/security.md': md('Securing widgets'),
  'docs/index.ja.md': md('Intro (ja)'),
  'docs/zh-cn/intro.md': md('Intro (zh)'),
  'docs/fr/intro.md': md('Intro (fr)'),
  'docs/v1/old.md': md('Old'),
  'docs/1.x/old.md': md('Old'),
  'docs/legacy/api.md': md('Legacy API'),
  'docs/internal/secret.md': md('Internal'),
  'docs/drafts/wip.md': md('WIP'),
  'docs/skip-me.md': md('Skip'),
  'docs/binary.md': Buffer.concat([Buffer.from('# Bin\n'), Buffer.from([0, 1, 2, 0])]),
  'docs/latin1.md': Buffer.from([0x23, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x0a]),
  'docs/huge.md': Buffer.alloc(2 * 1024 * 1024, 'a'),
  'versioned_docs/version-1.0/a.md': md('Versioned'),
  'versioned_sidebars/version-1.0-sidebars.md': md('Versioned'),
  'examples/demo.ipynb': JSON.stringify({ cells: [], nbformat: 4, nbformat_minor: 5 }),
  'examples/drafts/x.md': md('Draft example'),
  'src/notes.md': md('Source notes'),
  'node_modules/x/README.md': md('Dependency'),
  '.github/ISSUE_TEMPLATE.md': md('Issue'),
  'context7.json': JSON.stringify({
    $schema: 'https://context7.com/schema/context7.json',
    projectTitle: 'Widgets',
    description: 'Widgets for every occasion',
    folders: ['docs', 'examples'],
    excludeFolders: ['docs/internal', 'drafts'],
    excludeFiles: ['skip-me.md'],
    rules: ['Always close widgets after use'],
    previousVersions: [{ tag: 'v1.2.1', title: 'version 1.2.1' }, { tag: 'v1.1.0' }],
  }),
}

async function realisticRepo(): Promise<string> {
  const root = await makeTree(REALISTIC)
  await symlink('/etc/passwd', join(root, 'docs', 'passwd.md'))
  await symlink(join(root, 'src'), join(root, 'docs', 'linked'))
  await symlink('intro.md', join(root, 'docs', 'alias.md'))
  return root
}

describe('discoverDocs on a realistic repository', () => {
  it('includes exactly the documentation files, sorted', async () => {
    const { paths } = await discover(await realisticRepo())
    expect(paths).toEqual([
      'README.md',
      'docs/api.rst',
      'docs/guide.mdx',
      'docs/intro.md',
      'docs/notes.txt',
      'docs/security.md',
      'docs/setup.md',
      'examples/demo.ipynb',
      'llms.txt',
    ])
  })

  it('logs why symlinks, binary and oversized files were skipped, in walk order', async () => {
    const { logs } = await discover(await realisticRepo())
    expect(logs).toEqual([
      'skipped docs/alias.md: symlink',
      'skipped docs/binary.md: binary',
      `skipped docs/huge.md: oversized: ${2 * 1024 * 1024} bytes`,
      'skipped docs/latin1.md: not UTF-8 text',
      'skipped docs/linked: symlink',
      'skipped docs/passwd.md: symlink',
    ])
  })

  it('returns each file with its text, read once by the walk', async () => {
    const root = await realisticRepo()
    const { files } = await discover(root)
    expect(files.find((f) => f.path === 'docs/intro.md')).toEqual({ path: 'docs/intro.md', text: md('Intro') })
  })

  it('returns the context7.json settings', async () => {
    const { config } = await discover(await realisticRepo())
    expect(config).toEqual({
      projectTitle: 'Widgets',
      description: 'Widgets for every occasion',
      folders: ['docs', 'examples'],
      excludeFolders: ['docs/internal', 'drafts'],
      excludeFiles: ['skip-me.md'],
      rules: ['Always close widgets after use'],
      previousVersions: [
        { tag: 'v1.2.1', title: 'version 1.2.1' },
        { tag: 'v1.1.0', title: 'v1.1.0' },
      ],
    })
  })

  it('keeps version-specific trees when version filtering is skipped', async () => {
    const { paths } = await discover(await realisticRepo(), { skipVersionFiltering: true, folders: [] })
    expect(paths).toEqual(expect.arrayContaining(['docs/v1/old.md', 'docs/1.x/old.md', 'versioned_docs/version-1.0/a.md']))
  })
})

describe('discoverDocs defaults', () => {
  it('scans the whole repository without context7.json', async () => {
    const root = await makeTree({
      'readme.RST': 'Widgets\n=======\n',
      'src/notes.md': md('Notes'),
      'packages/a/CHANGELOG.md': md('Changes'),
      'packages/a/README.md': md('Package a'),
      'docs/de/intro.md': md('German'),
      'docs/v2.3/intro.md': md('Old'),
      'docs/api/v2/intro.md': md('Current v2 API'),
      'lib/es/README.md': md('ES build'),
      'dist/guide.md': md('Built'),
      'build/guide.md': md('Built'),
      'vendor/lib/README.md': md('Vendored'),
      'website/i18n/ko/intro.md': md('Korean'),
      'archive/2019.md': md('Archived'),
      'CMakeLists.txt': 'project(x)\n',
      'robots.txt': 'User-agent: *\n',
      'README.txt': 'Plain readme\n',
    })
    const { paths, logs } = await discover(root)
    expect(paths).toEqual(['README.txt', 'docs/api/v2/intro.md', 'lib/es/README.md', 'packages/a/README.md', 'readme.RST', 'src/notes.md'])
    expect(logs).toEqual([])
  })

  it('supports root-only, path and glob exclusion patterns', async () => {
    const root = await makeTree({
      'tmp/a.md': md('root tmp'),
      'docs/tmp/a.md': md('nested tmp'),
      'docs/guides/internal/a.md': md('internal'),
      'docs/guides/public/a.md': md('public'),
      'widgets.test/a.md': md('test fixtures'),
      'temp-1/a.md': md('temp'),
    })
    const { paths } = await discover(root, { excludeFolders: ['./tmp', 'docs/**/internal', '*.test', 'temp*'] })
    expect(paths).toEqual(['docs/guides/public/a.md', 'docs/tmp/a.md'])
  })

  it('reads root files and nested listed folders when folders is set', async () => {
    const root = await makeTree({
      'GUIDE.md': md('Root guide'),
      'site/content/docs/a.md': md('Listed'),
      'site/content/blog/b.md': md('Not listed'),
      'other/c.md': md('Not listed'),
    })
    const { paths } = await discover(root, { folders: ['./site/content/docs/'] })
    expect(paths).toEqual(['GUIDE.md', 'site/content/docs/a.md'])
  })

  it('reads AsciiDoc pages, and leaves partials and examples to the pages that include them', async () => {
    const root = await makeTree({
      'docs/antora.yml': 'name: widgets\n',
      'docs/modules/ROOT/pages/index.adoc': '= Widgets\n',
      'docs/modules/ROOT/pages/_attributes.adoc': ':version: 2\n',
      'docs/modules/ROOT/nav.adoc': '* xref:index.adoc[]\n',
      'docs/modules/ROOT/partials/support.adoc': '=== Help\n',
      'docs/modules/ROOT/examples/guide.adoc': '= Example\n',
      'README.asciidoc': '= Widgets\n',
    })
    expect((await discover(root)).paths).toEqual(['README.asciidoc', 'docs/modules/ROOT/pages/index.adoc'])
  })

  it("reads a Sphinx project kept in a build/ folder (SQLAlchemy's doc/build), and leaves other build output out", async () => {
    const root = await makeTree({ 'doc/build/conf.py': "project = 'x'\n", 'doc/build/orm/queries.rst': 'Queries\n=======\n', 'web/build/index.md': md('Built') })
    expect((await discover(root)).paths).toEqual(['doc/build/orm/queries.rst'])
  })

  it('throws no_code_found when nothing qualifies', async () => {
    const root = await makeTree({ 'index.js': 'export {}\n', 'notes.pdf': 'x' })
    const err = await discoverDocs(root, defaultRepoConfig(), () => {}).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(LecternError)
    expect(err).toMatchObject({ code: 'no_code_found', message: 'No documentation files found (looked for .md, .mdx, .markdown, .rst, .txt, .ipynb, .adoc, .asciidoc files).' })
  })

  it('names what its rules left out when no documentation file remains, so the operator knows what to change', async () => {
    const root = await makeTree({
      'index.js': 'export {}\n',
      'CHANGELOG.md': md('Changes'),
      'docs/whats-new.md': md('New'),
      'docs/news/2024.md': md('2024'),
      'docs/release-notes.md': md('Notes'),
      'docs/history.rst': 'History\n=======\n',
      'docs/index.ja.md': md('Japanese'),
      'docs/old/guide.md': md('Old'),
      'docs/2.0/guide.md': md('Two'),
    })
    const err = await discoverDocs(root, defaultRepoConfig(), () => {}).catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'no_code_found' })
    expect((err as LecternError).message).toBe(
      'No documentation files found (looked for .md, .mdx, .markdown, .rst, .txt, .ipynb, .adoc, .asciidoc files). Left out: ' +
        'CHANGELOG.md (project files such as the changelog and the licence); ' +
        'docs/2.0/ (the docs of other versions); ' +
        "docs/history.rst, docs/news/, docs/release-notes.md and 1 more (release notes, changelogs and blog posts, left out unless context7.json's folders names them); " +
        'docs/index.ja.md (translations); ' +
        "docs/old/ (archived and outdated folders, and context7.json's excludeFolders).",
    )
  })

  it(`stops at ${MAX_FILES} files and says so`, async () => {
    const root = await makeTree({})
    await mkdir(join(root, 'docs'))
    const names = Array.from({ length: MAX_FILES + 5 }, (_, i) => `p${String(i).padStart(5, '0')}.md`)
    for (let i = 0; i < names.length; i += 500) {
      await Promise.all(names.slice(i, i + 500).map((n) => writeFile(join(root, 'docs', n), '# x\n')))
    }
    const { files, logs } = await discover(root)
    expect(files).toHaveLength(MAX_FILES)
    expect(files.at(-1)?.path).toBe(`docs/${names[MAX_FILES - 1]}`)
    expect(logs).toEqual([`stopped at ${MAX_FILES} files: docs/${names[MAX_FILES]} and the rest of the repository were not scanned`])
  }, 120_000)

  it('reads files in batches yet logs and cuts in walk order: nothing after the cut is logged', async () => {
    const files = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`docs/p${String(i).padStart(2, '0')}.md`, '# x\n']))
    const root = await makeTree({ ...files, 'docs/p05.bin.md': Buffer.from([0, 1, 2]) })
    await symlink('p00.md', join(root, 'docs', 'p03-link.md'))
    await symlink('p00.md', join(root, 'docs', 'p38-link.md'))
    const logs: string[] = []
    const found = await walkRepo(root, defaultRepoConfig(), (line) => logs.push(line), { accept: () => true, folders: [], maxFiles: 36 })
    expect(found.map((f) => f.path)).toEqual([...Object.keys(files).slice(0, 36)])
    expect(logs).toEqual([
      'skipped docs/p03-link.md: symlink',
      'skipped docs/p05.bin.md: binary',
      'stopped at 36 files: docs/p36.md and the rest of the repository were not scanned',
    ])
  })
})

describe('release notes, changelogs and blog posts', () => {
  const NOISY = {
    'docs/index.md': md('Docs'),
    'docs/releases/4.2.md': md('Django 4.2 release notes'),
    'docs/release-notes.md': md('Release notes'),
    'docs/RELEASE_NOTES.md': md('Release notes'),
    'docs/history.rst': 'History\n=======\n',
    'docs/news.md': md('News'),
    'docs/whats-new.md': md("What's new"),
    'docs/changes/1.0.md': md('Changes'),
    'website/blog/2020-01-01-launch.md': md('Launch'),
    'doc/en/announce/release-8.0.0.rst': 'pytest-8.0.0\n============\n',
    'src/content/docs/latest-releases/drizzle-orm-v0300.mdx': md('DrizzleORM v0.30.0 release'),
    'docs/upgrading.md': md('Upgrading from 3 to 4'),
  }

  it('are left out under every common name, and say so; upgrade guides stay', async () => {
    const { paths, logs } = await discover(await makeTree(NOISY))
    expect(paths).toEqual(['docs/index.md', 'docs/upgrading.md'])
    expect(logs).toEqual(expect.arrayContaining([expect.stringContaining('skipped docs/releases/: release notes')]))
  })

  it("are read when context7.json's folders names them", async () => {
    const { paths } = await discover(await makeTree(NOISY), { folders: ['docs/releases'] })
    expect(paths).toContain('docs/releases/4.2.md')
  })
})

describe('readRepoConfig', () => {
  it('uses the defaults and logs why when context7.json is invalid', async () => {
    const logs: string[] = []
    const root = await makeTree({ 'context7.json': JSON.stringify({ folders: 'docs', rules: ['x'] }) })
    expect(await readRepoConfig(root, (m) => logs.push(m))).toEqual(defaultRepoConfig())
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatch(/^context7\.json ignored: folders: .+; rules\.0: /)
  })

  it('logs unparsable JSON', async () => {
    const logs: string[] = []
    const root = await makeTree({ 'context7.json': '{ "folders": [' })
    expect(await readRepoConfig(root, (m) => logs.push(m))).toEqual(defaultRepoConfig())
    expect(logs[0]).toMatch(/^context7\.json ignored: not valid JSON/)
  })

  it('refuses a symlinked context7.json', async () => {
    const logs: string[] = []
    const root = await makeTree({ 'real.json': JSON.stringify({ rules: ['Use the real config'] }) })
    await symlink(join(root, 'real.json'), join(root, 'context7.json'))
    expect(await readRepoConfig(root, (m) => logs.push(m))).toEqual(defaultRepoConfig())
    expect(logs).toEqual(['context7.json ignored: symlink'])
  })

  it('rejects a branch or tag that git could read as an option', async () => {
    const logs: string[] = []
    const root = await makeTree({ 'context7.json': JSON.stringify({ branch: '--upload-pack=evil' }) })
    expect(await readRepoConfig(root, (m) => logs.push(m))).toEqual(defaultRepoConfig())
    expect(logs[0]).toMatch(/branch: not a valid branch name/)
  })

  it('returns defaults silently when there is no context7.json', async () => {
    const logs: string[] = []
    expect(await readRepoConfig(await makeTree({}), (m) => logs.push(m))).toEqual(defaultRepoConfig())
    expect(logs).toEqual([])
  })
})
