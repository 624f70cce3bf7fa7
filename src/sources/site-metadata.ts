/**
 * A library's title and description as its docs site names itself, so that a library added
 * from git is not left with its repository's name and no description (MCP's
 * `resolve-library-id` shows both to the AI tool choosing among libraries). Read from the site's
 * own config nearest the root, generators in this order on a tie: MkDocs `site_name`/`site_description`, Docusaurus
 * `title`/`tagline`, VitePress and Starlight `title`/`description`, mdBook's book.toml, Hugo's
 * and Jekyll's configs, Antora's antora.yml, Sphinx's `project`; a description else from
 * package.json or pyproject.toml. Only literal values count: a value computed at build time
 * (`!ENV`, `process.env`, `{{ }}`) names nothing here. context7.json wins over all of these, and
 * the README's first paragraph is the last resort (git-reader.ts).
 */
import fs from 'node:fs'
import path from 'node:path'
import { findConfigs, type Found } from './site-layout.js'

export interface SiteMetadata {
  title?: string
  description?: string
}

const MAX_TITLE_CHARS = 120
const MAX_DESCRIPTION_CHARS = 300

/** A quoted or plain scalar that is a literal: no template, no environment lookup, no tag. */
function literal(raw: string | undefined, max: number): string | undefined {
  if (raw === undefined) return undefined
  const value = raw.trim().replace(/\s+#.*$/, '').replace(/^(['"`])(.*)\1,?$/, '$2').replace(/,$/, '').trim()
  if (value === '' || /^[!&*|>[{]|\{\{|\$\{|process\.env|import\.meta/.test(value) || value.length > max) return undefined
  return value
}

/** A top-level `key: value` of a YAML file (MkDocs, Jekyll, Antora, Hugo's YAML). */
const yamlKey = (text: string, key: string) => new RegExp(`^${key}:[ \\t]*(.+)$`, 'm').exec(text)?.[1]
/** A `key = "value"` of a TOML file, in the table named (`''` for the top level). */
function tomlKey(text: string, table: string, key: string): string | undefined {
  let current = ''
  for (const line of text.split('\n')) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line)
    if (header) current = header[1].trim()
    else if (current === table) {
      const value = new RegExp(`^\\s*${key}\\s*=\\s*(.+)$`).exec(line)?.[1]
      if (value !== undefined) return value
    }
  }
  return undefined
}
/** The first `key: 'value'` of a JavaScript or TypeScript config. */
const scriptKey = (text: string, key: string) => new RegExp(`\\b${key}\\s*:\\s*(['"\`])([^'"\`\\n]+)\\1`).exec(text)?.[2]

type Reader = (config: Found) => SiteMetadata

const named = (test: (name: string) => boolean) => (root: string) => findConfigs(root, test)

/** VitePress keeps its config in `.vitepress/`, which the search for other configs does not enter. */
function vitepressConfigs(root: string): Found[] {
  return findConfigs(root, (name) => name === '.vitepress', true).flatMap((site) =>
    findConfigs(path.join(root, site.dir, '.vitepress'), (name) => /^config\.(m?[jt]s)$/.test(name)).slice(0, 1),
  )
}

const scriptSite: Reader = ({ text }) => ({ title: literal(scriptKey(text, 'title'), MAX_TITLE_CHARS), description: literal(scriptKey(text, 'description'), MAX_DESCRIPTION_CHARS) })

/** The site configs, in the order they are trusted: how each is found, and what it says. */
const SITES: Array<{ find: (root: string) => Found[]; read: Reader }> = [
  { find: named((n) => n === 'mkdocs.yml' || n === 'mkdocs.yaml'), read: ({ text }) => ({ title: literal(yamlKey(text, 'site_name'), MAX_TITLE_CHARS), description: literal(yamlKey(text, 'site_description'), MAX_DESCRIPTION_CHARS) }) },
  { find: named((n) => /^docusaurus\.config\.(m?[jt]s)$/.test(n)), read: ({ text }) => ({ title: literal(scriptKey(text, 'title'), MAX_TITLE_CHARS), description: literal(scriptKey(text, 'tagline'), MAX_DESCRIPTION_CHARS) }) },
  { find: vitepressConfigs, read: scriptSite },
  { find: named((n) => /^astro\.config\.(m?[jt]s)$/.test(n)), read: scriptSite },
  { find: named((n) => n === 'book.toml'), read: ({ text }) => ({ title: literal(tomlKey(text, 'book', 'title'), MAX_TITLE_CHARS), description: literal(tomlKey(text, 'book', 'description'), MAX_DESCRIPTION_CHARS) }) },
  { find: named((n) => /^(hugo|config)\.toml$/.test(n)), read: ({ text }) => ({ title: literal(tomlKey(text, '', 'title'), MAX_TITLE_CHARS), description: literal(tomlKey(text, 'params', 'description'), MAX_DESCRIPTION_CHARS) }) },
  { find: named((n) => n === '_config.yml' || n === 'antora.yml' || /^hugo\.ya?ml$/.test(n)), read: ({ text }) => ({ title: literal(yamlKey(text, 'title'), MAX_TITLE_CHARS), description: literal(yamlKey(text, 'description'), MAX_DESCRIPTION_CHARS) }) },
  { find: named((n) => n === 'conf.py'), read: ({ text }) => ({ title: literal(/^project\s*=\s*(['"])([^'"\n]+)\1/m.exec(text)?.[2], MAX_TITLE_CHARS) }) },
]

/** What the repository's docs site and package metadata say the library is called and is. */
export function siteMetadata(root: string): SiteMetadata {
  // One site's config says both: a description is never taken from another site (a test fixture's).
  // The config nearest the root names the library (a fixture's mkdocs.yml deep in tests/ does not); generators break ties.
  const configs = SITES.flatMap(({ find, read }, rank) => find(root).map((config) => ({ depth: config.dir === '' ? 0 : config.dir.split('/').length, rank, read: () => read(config) })))
  configs.sort((a, b) => a.depth - b.depth || a.rank - b.rank)
  const site = configs.map((config) => config.read()).find((read) => read.title !== undefined || read.description !== undefined) ?? {}
  const description = site.description ?? packageDescription(root)
  return { ...(site.title ? { title: site.title } : {}), ...(description ? { description } : {}) }
}

/** package.json's or pyproject.toml's description, at the repository root. */
function packageDescription(root: string): string | undefined {
  const packageJson = readText(path.join(root, 'package.json'))
  if (packageJson) {
    try {
      const parsed = JSON.parse(packageJson) as { description?: unknown }
      if (typeof parsed.description === 'string') return literal(JSON.stringify(parsed.description), MAX_DESCRIPTION_CHARS)
    } catch {
      // Not JSON: no description from it.
    }
  }
  const pyproject = readText(path.join(root, 'pyproject.toml'))
  return pyproject ? literal(tomlKey(pyproject, 'project', 'description') ?? tomlKey(pyproject, 'tool.poetry', 'description'), MAX_DESCRIPTION_CHARS) : undefined
}

function readText(file: string): string | undefined {
  try {
    const stat = fs.lstatSync(file)
    return stat.isFile() && stat.size <= 256 * 1024 ? fs.readFileSync(file, 'utf8') : undefined
  } catch {
    return undefined
  }
}
