import { symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repositoryReader, siteLayout } from '../../src/sources/site-layout.js'
import { tmpTree as tree } from '../helpers/tmp.js'

describe('the docs site layout of a repository', () => {
  it('finds a Sphinx project: its source dir, its literal language and which suffixes are reST', async () => {
    const root = await tree({ 'docs/conf.py': "project = 'Django'\nsource_suffix = '.txt'\nhighlight_language = 'python3'\n", 'docs/index.txt': 'x' })
    const context = siteLayout(root)
    expect(context).toMatchObject({ siteRoots: ['docs'], literalLanguage: 'python', sphinx: { root: 'docs', suffixes: ['.txt'] } })
  })

  it('finds VitePress srcDir, MkDocs docs_dir and snippet base paths, and Docusaurus', async () => {
    const root = await tree({
      '.vitepress/config.ts': "export default { srcDir: 'src', title: 'Vue' }",
      'mkdocs.yml': 'site_name: x\ndocs_dir: documentation\nmarkdown_extensions:\n  - pymdownx.snippets:\n      base_path: [docs_src, ".."]\n',
      'website/docusaurus.config.js': 'module.exports = {}',
    })
    expect(siteLayout(root).siteRoots).toEqual(expect.arrayContaining(['src', 'docs_src', 'documentation', 'website']))
    expect(siteLayout(root).literalLanguage).toBeUndefined()
  })

  it('names the anchor rules of VitePress and MkDocs sites, not of a site that brings its own slugify', async () => {
    const root = await tree({
      '.vitepress/config.ts': "export default { srcDir: 'src' }",
      'mkdocs.yml': 'site_name: x\ndocs_dir: documentation\n',
      'other/mkdocs.yml': 'site_name: y\nmarkdown_extensions:\n  - toc:\n      slugify: !!python/object/apply:pymdownx.slugs.slugify\n',
      'third/.vitepress/config.mts': 'export default { markdown: { anchor: { slugify } } }',
    })
    expect(siteLayout(root).anchorStyles).toEqual([
      { root: 'src', style: 'vitepress' },
      { root: 'documentation', style: 'python-markdown' },
    ])
    expect(siteLayout(await tree({ 'docs/index.md': '# x' })).anchorStyles).toBeUndefined()
  })

  it('finds the roots of Jekyll, Hugo, mdBook and Antora sites', async () => {
    const root = await tree({
      'site/_config.yml': 'title: x\n',
      'hugo/hugo.toml': 'title = "x"\ncontentDir = "pages"\n',
      'hugo/pages/_index.md': '# x',
      'tool/config.toml': 'x = 1\n',
      'book/book.toml': '[book]\nsrc = "chapters"\n',
      'docs/antora.yml': 'name: x\n',
    })
    const roots = siteLayout(root).siteRoots
    expect(roots).toEqual(expect.arrayContaining(['site', 'hugo/pages', 'hugo', 'book/chapters', 'book', 'docs']))
    expect(roots).not.toContain('tool')
  })

  it('reads files of the repository only: no path or symlink leads outside it', async () => {
    const outside = await tree({ 'secret.txt': 'top secret' })
    const root = await tree({ 'docs_src/a.py': 'print(1)', 'big.py': 'x'.repeat(600 * 1024) })
    await symlink(join(outside, 'secret.txt'), join(root, 'link.txt'))
    await symlink(join(root, 'docs_src/a.py'), join(root, 'inside-link.py'))
    const reader = repositoryReader(root, () => {})
    expect(reader.readFile('docs_src/a.py')).toBe('print(1)')
    expect(reader.readFile('inside-link.py')).toBe('print(1)')
    const leaves = { skipped: 'a link that leaves the repository or points at nothing' }
    expect(reader.readFile('link.txt')).toEqual(leaves)
    // Whether the file a link points at exists outside the repository is never told apart.
    await symlink(join(outside, 'missing.txt'), join(root, 'dangling.txt'))
    expect(reader.readFile('dangling.txt')).toEqual(leaves)
    expect(reader.readFile('../' + outside.split('/').pop() + '/secret.txt')).toBeUndefined()
    expect(reader.readFile(join(outside, 'secret.txt'))).toBeUndefined()
    expect(reader.readFile('big.py')).toEqual({ skipped: expect.stringMatching(/^\d+ bytes, over the 524288-byte cap$/) })
    expect(reader.readFile('docs_src')).toBeUndefined()
    expect(reader.readFile('missing.py')).toBeUndefined()
  })

  it('reads at most 8 MB of included text for one page', async () => {
    const root = await tree({ 'part.md': 'x'.repeat(500 * 1024) })
    const reader = repositoryReader(root, () => {})
    for (let i = 0; i < 16; i++) expect(reader.readFile('part.md'), `read ${i + 1}`).toHaveLength(500 * 1024)
    expect(reader.readFile('part.md')).toEqual({ skipped: 'over the 8 MB one page may include in all' })
  })
})
