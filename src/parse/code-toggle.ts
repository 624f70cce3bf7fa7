/**
 * Hugo's `{{< code-toggle >}}`: a configuration written once, in TOML, YAML or JSON, that the site
 * shows in all three (its shortcode unmarshals the content and marshals it again). Lectern does
 * the same, so a question in any of the formats finds the example: one code snippet whose
 * alternatives are the three, the one as written first. TOML through `smol-toml` (TOML 1.0), YAML
 * through `yaml`, whose alias limit keeps a hostile document from expanding.
 */
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml'
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml'
import type { CodeAlternative } from './types.js'

/** Fence meta that marks a code-toggle's content (markdown-templates.ts writes it, markdown.ts reads it). */
export const CODE_TOGGLE_META = 'lectern-code-toggle'

type Format = 'toml' | 'yaml' | 'json'
const FORMATS: readonly Format[] = ['toml', 'yaml', 'json']

const isTable = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The content as the format it is written in, read as Hugo reads it: JSON when it starts with `{`, else TOML, else YAML. */
function read(content: string): { format: Format; data: Record<string, unknown> } | undefined {
  const attempts: Array<[Format, (text: string) => unknown]> = content.trimStart().startsWith('{')
    ? [['json', JSON.parse]]
    : [
        ['toml', parseToml],
        ['yaml', (text) => parseYaml(text, { logLevel: 'error' })],
      ]
  for (const [format, parse] of attempts) {
    try {
      const data = parse(content)
      if (isTable(data) && Object.keys(data).length > 0) return { format, data }
    } catch {
      // Not this format: the next one is tried, and content none reads is shown as written.
    }
  }
  return undefined
}

const write: Record<Format, (data: Record<string, unknown>) => string> = {
  toml: (data) => stringifyToml(data),
  // JSON's view of the data: TOML dates as ISO strings, as Hugo's JSON shows them.
  yaml: (data) => stringifyYaml(JSON.parse(JSON.stringify(data))),
  json: (data) => JSON.stringify(data, null, 2),
}

/**
 * The content of a code-toggle in TOML, YAML and JSON, the format it was written in first (as
 * written); undefined when it is none of them, or when one cannot hold it (TOML has no null).
 */
export function configVariants(content: string): CodeAlternative[] | undefined {
  const written = read(content)
  if (!written) return undefined
  const others = FORMATS.filter((format) => format !== written.format)
  try {
    return [{ language: written.format, code: content.trimEnd() }, ...others.map((format) => ({ language: format, code: write[format](written.data).trimEnd() }))]
  } catch {
    return undefined
  }
}
