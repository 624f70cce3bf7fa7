/** Generated documentation large enough that indexing it takes a while (6 snippets per page). */
export function largeDocs(pages: number): Record<string, string> {
  const files: Record<string, string> = {}
  for (let page = 0; page < pages; page++) {
    const sections = Array.from({ length: 3 }, (_, s) => {
      const name = `feature${page}x${s}`
      return `## Configure ${name}\n\nThe ${name} option controls how page ${page} renders its widgets, caches results and retries requests.\n\n\`\`\`ts\nimport { ${name} } from 'large'\n\n${name}({ retries: ${s}, page: ${page} })\n\`\`\`\n`
    })
    files[`docs/page-${String(page).padStart(3, '0')}.md`] = `# Page ${page}\n\n${sections.join('\n')}`
  }
  return files
}
