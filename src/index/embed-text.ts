/** What an embedder sees of a snippet, wherever a set is embedded (build, rebuild, re-embedding, engine file). */
import type { NewSnippet } from '../store/snippets.js'

/** The part of a snippet an embedder sees; long code adds little meaning past this. */
const EMBED_CHARS = 2000

export const embedText = (s: Pick<NewSnippet, 'title' | 'breadcrumb' | 'description' | 'body'>) => `${s.title}\n${s.breadcrumb}\n${s.description}\n${s.body}`.slice(0, EMBED_CHARS)
