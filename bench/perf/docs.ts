/**
 * Generated documentation in the two shapes the benchmark feeds Lectern: Markdown files for the
 * git ingest path, and ready snippets (what the parser would have produced) for building large
 * stores without paying for Markdown parsing a million times.
 */
import { toNewSnippet } from '../../src/jobs/ingest.js'
import type { ParsedSnippet } from '../../src/parse/types.js'
import type { NewSnippet } from '../../src/store/snippets.js'
import { LANGUAGES, between, codeSample, paragraph, pick, question, seededRng, sectionTitle, sentence, topicTitle, type Rng } from './text.js'

export interface GeneratedFile {
  path: string
  text: string
}

const FOLDERS = ['guides', 'api', 'reference', 'tutorials', 'concepts', 'integrations', 'recipes', 'advanced']

const fence = (rng: Rng) => {
  const language = pick(rng, LANGUAGES)
  return `\`\`\`${language}\n${codeSample(rng, language)}\n\`\`\``
}

const bulletList = (rng: Rng) => Array.from({ length: between(rng, 3, 6) }, () => `- ${sentence(rng)}`).join('\n')

/** One section: prose, then code blocks each introduced by a paragraph, sometimes a list or sub-section. */
function section(rng: Rng, depth: number): string {
  const parts = [`${'#'.repeat(depth)} ${depth === 2 ? sectionTitle(rng) : topicTitle(rng)}`, paragraph(rng)]
  for (let i = between(rng, 0, 2); i > 0; i--) parts.push(paragraph(rng, between(rng, 1, 2)), fence(rng))
  if (rng() < 0.3) parts.push(bulletList(rng))
  if (depth === 2 && rng() < 0.4) parts.push(section(rng, 3))
  return parts.join('\n\n')
}

function markdownFile(rng: Rng, index: number): GeneratedFile {
  const title = topicTitle(rng)
  const sections = Array.from({ length: between(rng, 2, 5) }, () => section(rng, 2))
  const text = [`---\ntitle: ${title}\n---`, `# ${title}`, paragraph(rng), ...sections].join('\n\n')
  const folder = FOLDERS[index % FOLDERS.length]
  return { path: `docs/${folder}/${String(Math.floor(index / FOLDERS.length)).padStart(4, '0')}-${title.toLowerCase().replace(/\W+/g, '-')}.md`, text: `${text}\n` }
}

export function markdownRepo(files: number, seed: number): GeneratedFile[] {
  const rng = seededRng(seed)
  const readme = { path: 'README.md', text: `# Bench docs\n\n${paragraph(rng, 4)}\n` }
  return [readme, ...Array.from({ length: files }, (_, i) => markdownFile(rng, i))]
}

function parsedSnippet(rng: Rng, page: string, n: number): ParsedSnippet {
  const breadcrumb = `${page} > ${sectionTitle(rng)}`
  const anchor = `section-${n}`
  if (rng() < 0.6) {
    const language = pick(rng, LANGUAGES)
    const codeList = [{ language, code: codeSample(rng, language) }]
    if (rng() < 0.2) codeList.push({ language: 'bash', code: codeSample(rng, 'bash') })
    return { kind: 'code', title: topicTitle(rng), description: paragraph(rng, between(rng, 1, 3)), breadcrumb, pageTitle: page, anchor, codeList }
  }
  const content = Array.from({ length: between(rng, 1, 3) }, () => paragraph(rng)).join('\n\n')
  return { kind: 'info', breadcrumb, pageTitle: page, anchor, content }
}

/** The snippets of one library, as parse + toNewSnippet would make them (tokens counted, hashed). */
export function librarySnippets(libraryIndex: number, count: number): NewSnippet[] {
  const rng = seededRng(0x5eed0000 + libraryIndex)
  const snippets: NewSnippet[] = []
  let page = topicTitle(rng)
  for (let n = 0; n < count; n++) {
    if (n % 8 === 0) page = topicTitle(rng)
    const source = `docs/${pick(rng, FOLDERS)}/page-${Math.floor(n / 8)}.md`
    snippets.push(toNewSnippet(parsedSnippet(rng, page, n), `${source}#section-${n}`))
  }
  return snippets
}

export function questions(count: number, seed: number): string[] {
  const rng = seededRng(seed)
  const unique = new Set<string>()
  while (unique.size < count) unique.add(question(rng))
  return [...unique]
}
