/**
 * The parse tasks a job's parse thread runs (parse-thread.ts), by name. Each reader's module is
 * imported at its first task, so a thread that only reads Markdown never loads the TypeScript
 * compiler.
 */
import type { ParseTasks } from '../parse/types.js'

type Tasks = { [K in keyof ParseTasks]: (input: ParseTasks[K][0]) => Promise<ParseTasks[K][1]> }

export const parseTasks: Tasks = {
  async document({ doc, site }) {
    const [{ parseDocument }, { siteContext }] = await Promise.all([import('../parse/index.js'), import('../sources/site-layout.js')])
    const notes: string[] = []
    const snippets = parseDocument(doc, site ? siteContext(site, (note) => notes.push(note)) : {})
    return { snippets, notes }
  },
  async html({ html, url }) {
    return (await import('../parse/html.js')).readHtmlPage(html, url)
  },
  async source({ path, text }) {
    return (await import('../parse/source-code/index.js')).sourceFileSnippets(path, text)
  },
  async openapi({ text, origin }) {
    return (await import('../sources/openapi.js')).openApiSnippets(text, origin)
  },
}
