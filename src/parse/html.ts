/**
 * HTML pages to Markdown for the web readers (website, llms.txt): the main content is picked out
 * readability-style, navigation chrome dropped, and code blocks keep their language so the
 * Markdown parser makes code snippets of them.
 */
import { Readability } from '@mozilla/readability'
import { parseHTML } from 'linkedom'
import TurndownService from 'turndown'

export interface HtmlPage {
  /** The page's first H1, else its <title>. */
  title: string
  /** <meta name="description">, when the page has one. */
  description?: string
  /** The main content as Markdown, starting with `# title`. */
  markdown: string
  /** Absolute URLs of the page's links, as written (fragments and queries still on). */
  links: string[]
  /** The absolute `<link rel="canonical">` URL, when there is one. */
  canonical?: string
}

type Doc = ReturnType<typeof parseHTML>['document']
type El = ReturnType<Doc['createElement']>

/** Repeated on every page of a site and never the answer to a question. */
const CHROME = [
  'script', 'style', 'noscript', 'template', 'iframe', 'form', 'nav', 'footer', 'aside',
  '[role="navigation"]', '[role="banner"]', '[role="contentinfo"]', '[role="complementary"]', '[aria-hidden="true"]',
].join(',')

const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang|highlight-source|highlight)-([A-Za-z0-9_+#.-]+)/

/** Parses a page and returns its main content as Markdown, with what a crawler needs from it. */
export function readHtmlPage(html: string, pageUrl: string): HtmlPage {
  const { document } = parseHTML(html)
  const links = linksOf(document, pageUrl)
  const canonical = canonicalOf(document, pageUrl)
  const description = document.querySelector('meta[name="description"]')?.getAttribute('content')?.trim() || undefined
  const title = titleOf(document)
  markCodeLanguages(document)
  dropChrome(document)
  const content = mainContent(document)
  const markdown = withTitle(title, htmlToMarkdown(content))
  return { title, markdown, links, ...(description ? { description } : {}), ...(canonical ? { canonical } : {}) }
}

function absolute(href: string | null | undefined, base: string): string | undefined {
  if (!href) return undefined
  try {
    return new URL(href, base).toString()
  } catch {
    return undefined
  }
}

function linksOf(document: Doc, pageUrl: string): string[] {
  const base = absolute(document.querySelector('base[href]')?.getAttribute('href'), pageUrl) ?? pageUrl
  return [...document.querySelectorAll('a[href]')]
    .map((a: El) => absolute(a.getAttribute('href'), base))
    .filter((u): u is string => u !== undefined)
}

function canonicalOf(document: Doc, pageUrl: string): string | undefined {
  return absolute(document.querySelector('link[rel~="canonical"][href]')?.getAttribute('href'), pageUrl)
}

function titleOf(document: Doc): string {
  const h1 = document.querySelector('main h1, article h1, h1')?.textContent?.trim()
  const title = document.querySelector('title')?.textContent?.trim()
  return (h1 || title || '').replace(/\s+/g, ' ')
}

/**
 * Highlighters put the language on the <pre>, the <code> or a wrapping <div>, as a class or a
 * data attribute; it is copied onto the <pre> as data-language before readability can move or
 * drop the wrappers.
 */
function markCodeLanguages(document: Doc): void {
  for (const pre of document.querySelectorAll('pre')) {
    const code = pre.querySelector('code')
    const holders = [code, pre, pre.parentElement, pre.parentElement?.parentElement].filter(Boolean) as El[]
    const language = holders.map(languageOf).find(Boolean)
    if (language) pre.setAttribute('data-language', language)
  }
}

function languageOf(element: El): string | undefined {
  const data = element.getAttribute('data-language') ?? element.getAttribute('data-lang')
  if (data) return data.toLowerCase()
  return LANGUAGE_CLASS.exec(element.getAttribute('class') ?? '')?.[1]?.toLowerCase()
}

function dropChrome(document: Doc): void {
  for (const element of document.querySelectorAll(CHROME)) element.remove()
  // A page header holds the site's navigation; a header inside the article holds its title.
  for (const header of document.querySelectorAll('header')) {
    if (!header.closest('main, article, [role="main"]')) header.remove()
  }
}

/**
 * Readability's pick, unless it lost text or section headings that the page's <main>/<article>
 * holds (on short docs pages it keeps paragraphs and drops the headings snippets anchor on);
 * then that container, else the body.
 */
function mainContent(document: Doc): string {
  const container = document.querySelector('main, [role="main"], article')?.innerHTML
  let picked: string | undefined
  try {
    picked = new Readability(document.cloneNode(true) as never, { keepClasses: true }).parse()?.content?.trim() || undefined
  } catch {
    picked = undefined
  }
  if (!container) return picked ?? document.body?.innerHTML ?? ''
  const keepsStructure = picked !== undefined && sectionHeadings(picked) >= sectionHeadings(container) && textLength(picked) >= textLength(container) / 2
  return keepsStructure ? picked! : container
}

const sectionHeadings = (html: string): number => html.match(/<h[2-6][\s>]/gi)?.length ?? 0

function textLength(html: string): number {
  return html.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim().length
}

/** HTML to Markdown: ATX headings, fenced code blocks with the language kept. */
export function htmlToMarkdown(html: string): string {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' })
  service.remove(['script', 'style', 'noscript'])
  service.addRule('fencedCodeWithLanguage', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const pre = node as unknown as El
      const language = pre.getAttribute('data-language') ?? languageOf(pre) ?? (pre.querySelector('code') ? languageOf(pre.querySelector('code')!) : undefined) ?? ''
      const code = (pre.textContent ?? '').replace(/\n+$/, '')
      const fence = code.includes('```') ? '````' : '```'
      return `\n\n${fence}${language}\n${code}\n${fence}\n\n`
    },
  })
  return service.turndown(html).trim()
}

/** Puts `# title` first, replacing the content's own first heading when it repeats the title. */
function withTitle(title: string, markdown: string): string {
  if (!title) return markdown
  const lines = markdown.split('\n')
  const first = lines.findIndex((line) => line.trim() !== '')
  if (first >= 0 && /^#{1,6}\s/.test(lines[first]) && lines[first].replace(/^#+\s*/, '').trim() === title) lines.splice(first, 1)
  return `# ${title}\n\n${lines.join('\n').trim()}\n`
}
