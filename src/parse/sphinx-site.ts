/**
 * Pages of a Sphinx project: everything under its source root is rendered by docutils, so its
 * headings get docutils section ids, whether the page is reStructuredText or MyST Markdown.
 */
import type { ParseContext } from './types.js'

export function inSphinxSite(path: string, context: ParseContext): boolean {
  const sphinx = context.sphinx
  return sphinx !== undefined && (sphinx.root === '' || path.startsWith(`${sphinx.root}/`))
}
