/**
 * Heading anchors as each generator names them, so that a snippet's source link lands on its
 * heading on the published site: GitHub, Docusaurus, Starlight, Hugo and Jekyll (GFM) slug a
 * heading the GitHub way; VitePress with its own slugify (`4.0.11` -> `_4-0-11`); MkDocs with
 * Python-Markdown's toc (`Foo & Bar` -> `foo-bar`, ASCII only, repeats `_1`); Sphinx with
 * docutils' ids. An explicit id (`{#id}`) wins over all of them, in the parsers.
 */
import { slugify as vitepressSlug } from '@mdit-vue/shared'
import GithubSlugger from 'github-slugger'
import { inSphinxSite } from './sphinx-site.js'
import type { AnchorStyle, ParseContext } from './types.js'

/** A page's slugger: called once per heading in page order, so that it can number repeats. */
export type Slugger = (text: string) => string

/** The anchor style of a page: docutils in a Sphinx project, else its site's (the innermost site folder holding it), else GitHub's. */
export function anchorStyleOf(path: string, context: ParseContext): AnchorStyle {
  if (inSphinxSite(path, context)) return 'docutils'
  let best: { root: string; style: AnchorStyle } | undefined
  for (const site of context.anchorStyles ?? []) {
    const holds = site.root === '' || path.startsWith(`${site.root}/`)
    if (holds && (best === undefined || site.root.length > best.root.length)) best = site
  }
  return best?.style ?? 'github'
}

export function sluggerFor(style: AnchorStyle): Slugger {
  switch (style) {
    case 'github': {
      const slugger = new GithubSlugger()
      return (text) => slugger.slug(text)
    }
    case 'docutils':
      return docutilsIds()
    case 'vitepress':
      return numberedRepeats(vitepressSlug)
    case 'python-markdown':
      return pythonMarkdownIds()
  }
}

/** markdown-it-anchor's numbering, which VitePress uses: a repeated slug becomes `slug-1`, `slug-2`... */
function numberedRepeats(slug: (text: string) => string): Slugger {
  const seen = new Set<string>()
  return (text) => {
    const base = slug(text)
    let id = base
    for (let i = 1; seen.has(id); i++) id = `${base}-${i}`
    seen.add(id)
    return id
  }
}

/**
 * Python-Markdown's toc `slugify` and `unique`: the text decomposed and kept to ASCII, anything
 * but word characters, spaces and hyphens dropped, runs of spaces and hyphens made one hyphen; an
 * empty or repeated id gets `_1`, `_2`...
 */
function pythonMarkdownIds(): Slugger {
  const seen = new Set<string>()
  return (text) => {
    let id = text
      .normalize('NFKD')
      .replace(/[^\x00-\x7f]/g, '')
      .replace(/[^\w\s-]/g, '')
      .trim()
      .toLowerCase()
      .replace(/[-\s]+/g, '-')
    while (id === '' || seen.has(id)) {
      const numbered = /^(.*)_(\d+)$/.exec(id)
      id = numbered ? `${numbered[1]}_${Number(numbered[2]) + 1}` : `${id}_1`
    }
    seen.add(id)
    return id
  }
}

/**
 * docutils' section ids (`make_id`): ASCII letters and digits joined by hyphens, starting with a
 * letter; a repeated id becomes `id<n>`, as docutils numbers the ids it has to invent.
 */
function docutilsIds(): Slugger {
  const seen = new Set<string>()
  let invented = 0
  return (text) => {
    const id = text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^[^a-z]+/, '')
      .replace(/-+$/, '')
    if (id !== '' && !seen.has(id)) {
      seen.add(id)
      return id
    }
    return `id${++invented}`
  }
}
