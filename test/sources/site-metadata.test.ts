import { describe, expect, it } from 'vitest'
import { siteMetadata } from '../../src/sources/site-metadata.js'
import { tmpTree as tree } from '../helpers/tmp.js'

describe("a library's title and description from its docs site", () => {
  it('reads each generator\'s config', async () => {
    const cases: Array<[Record<string, string>, { title?: string; description?: string }]> = [
      [{ 'docs/en/mkdocs.yml': 'site_name: FastAPI\nsite_description: FastAPI framework, high performance, easy to learn, fast to code, ready for production\ntheme:\n  name: material\n' }, { title: 'FastAPI', description: 'FastAPI framework, high performance, easy to learn, fast to code, ready for production' }],
      [{ 'website/docusaurus.config.js': "module.exports = {\n  title: 'Jest',\n  tagline: '🃏 Delightful JavaScript Testing',\n}\n" }, { title: 'Jest', description: '🃏 Delightful JavaScript Testing' }],
      [{ 'docs/.vitepress/config.ts': "export default defineConfig({\n  title: \"Vite\",\n  description: 'Next Generation Frontend Tooling',\n})\n" }, { title: 'Vite', description: 'Next Generation Frontend Tooling' }],
      [{ 'astro.config.mjs': "export default defineConfig({ integrations: [starlight({ title: 'Starlight', description: 'Docs with Astro' })] })\n" }, { title: 'Starlight', description: 'Docs with Astro' }],
      [{ 'book.toml': '[book]\ntitle = "The Rust Programming Language"\ndescription = "The book"\n\n[output.html]\ntitle = "other"\n' }, { title: 'The Rust Programming Language', description: 'The book' }],
      [{ 'hugo.toml': 'title = "Kubernetes"\n\n[params]\ndescription = "Production-Grade Container Orchestration"\n' }, { title: 'Kubernetes', description: 'Production-Grade Container Orchestration' }],
      [{ '_config.yml': 'title: Jekyll • Simple, blog-aware, static sites\ndescription: Transform your plain text into static websites and blogs\n' }, { title: 'Jekyll • Simple, blog-aware, static sites', description: 'Transform your plain text into static websites and blogs' }],
      [{ 'docs/conf.py': "project = 'Django'\nrelease = '5.0'\n", 'package.json': '{"name": "x", "description": "The web framework for perfectionists with deadlines."}' }, { title: 'Django', description: 'The web framework for perfectionists with deadlines.' }],
      [{ 'pyproject.toml': '[project]\nname = "typer"\ndescription = "Typer, build great CLIs. Easy to code. Based on Python type hints."\n' }, { description: 'Typer, build great CLIs. Easy to code. Based on Python type hints.' }],
    ]
    for (const [files, expected] of cases) expect(siteMetadata(await tree(files)), Object.keys(files).join(', ')).toEqual(expected)
  })

  it('takes literal values only, and both from the one config nearest the root', async () => {
    const computed = await tree({ 'mkdocs.yml': 'site_name: !ENV [SITE_NAME, "x"]\nsite_description: "{{ config.extra.tagline }}"\n', 'docusaurus.config.js': 'module.exports = { title: process.env.TITLE, tagline: `${name} docs` }\n' })
    expect(siteMetadata(computed)).toEqual({})
    const nested = await tree({ 'mkdocs.yml': 'site_name: Outer\n', 'tests/fixtures/site/mkdocs.yml': 'site_name: Fixture\nsite_description: A test fixture\n' })
    expect(siteMetadata(nested)).toEqual({ title: 'Outer' })
  })
})
