/**
 * The parse tasks a job's parse thread runs (parse-thread.ts), by name: each loads its reader's
 * modules, then returns the parse itself. The thread says when loading is done, so the parse
 * budget counts the parse only, not the module loading of a fresh thread on a busy machine; a
 * thread that only reads Markdown never loads the TypeScript compiler.
 */
import type { DocumentReport, IncludeOutcome, ParseTasks } from '../parse/types.js'

type Parser<K extends keyof ParseTasks> = (input: ParseTasks[K][0]) => ParseTasks[K][1] | Promise<ParseTasks[K][1]>
type Loaders = { [K in keyof ParseTasks]: () => Promise<Parser<K>> }

export const parseTasks: Loaders = {
  async document() {
    const [{ parseDocument }, { siteContext }, { inspectDocument }] = await Promise.all([
      import('../parse/index.js'),
      import('../sources/site-layout.js'),
      import('../extraction/document-report.js'),
    ])
    return ({ doc, site }) => {
      const includes: IncludeOutcome[] = []
      const notRendered: DocumentReport['notRendered'] = []
      const context = { ...(site ? siteContext(site, (outcome) => includes.push(outcome)) : {}), notRendered: (item: DocumentReport['notRendered'][number]) => notRendered.push(item) }
      const snippets = parseDocument(doc, context)
      return { snippets, report: inspectDocument(doc, snippets, includes, context, notRendered) }
    }
  },
  async html() {
    const { readHtmlPage } = await import('../parse/html.js')
    return ({ html, url }) => readHtmlPage(html, url)
  },
  async confluence() {
    const { createTurndown, storageToMarkdown } = await import('../sources/confluence-storage.js')
    const service = createTurndown()
    return ({ storage }) => storageToMarkdown(storage, service)
  },
  async source() {
    const { sourceFileSnippets } = await import('../parse/source-code/index.js')
    return ({ path, text }) => sourceFileSnippets(path, text)
  },
  async openapi() {
    const { openApiSnippets } = await import('../sources/openapi.js')
    return ({ text, origin }) => openApiSnippets(text, origin)
  },
}
