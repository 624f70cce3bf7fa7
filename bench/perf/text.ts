/**
 * Deterministic documentation-like text: a seeded PRNG over a vocabulary of real programming
 * words, so every run benchmarks the same corpus and BM25 sees realistic term statistics
 * (a shared core vocabulary plus a long tail of identifiers).
 */

export type Rng = () => number

/** mulberry32: tiny, fast and good enough to make text that does not repeat. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]
export const between = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1))

const NOUNS = `request response router middleware cache schema client server handler session token cookie header query
  route plugin hook component state store reducer action effect context provider consumer stream buffer socket channel
  queue worker job task scheduler timer event listener emitter promise callback iterator generator module package bundle
  config option setting environment variable secret key credential database table column index migration transaction
  connection pool cursor record document collection field model entity repository service controller view template
  layout page form input button dialog modal element node tree graph edge vertex path file directory stream logger metric
  trace span error exception retry timeout deadline limit quota batch chunk payload message topic subscription webhook
  endpoint resource permission role policy user account tenant cluster container image volume deployment manifest
  build artifact dependency version release branch commit tag pipeline test fixture mock snapshot coverage benchmark`
  .split(/\s+/)
  .filter(Boolean)

const VERBS = `create read update delete fetch load save parse render validate serialize deserialize encode decode compile
  configure register resolve dispatch subscribe publish emit handle process transform filter map reduce sort merge split
  join connect disconnect open close start stop restart initialize mount unmount attach detach bind invoke call execute
  schedule cancel retry throttle debounce cache invalidate refresh sync stream pipe upload download authenticate authorize
  sign verify encrypt decrypt hash compress extract install deploy build test mock inspect debug log trace measure`
  .split(/\s+/)
  .filter(Boolean)

const ADJECTIVES = `async sync default custom global local remote lazy eager nested optional required readonly mutable
  immutable concurrent parallel incremental streaming cached persistent transient secure public private internal
  experimental deprecated stable typed generic dynamic static`
  .split(/\s+/)
  .filter(Boolean)

const SECTIONS = `Installation,Quick start,Configuration,Usage,API reference,Examples,Error handling,Authentication,
  Testing,Deployment,Performance,Migration guide,Advanced usage,Troubleshooting,Best practices,Options,Lifecycle,Hooks,
  Plugins,Caching,Logging,Security,Internals,FAQ`
  .split(',')
  .map((s) => s.trim())

export const LANGUAGES = ['typescript', 'javascript', 'python', 'bash', 'go', 'rust', 'json', 'yaml'] as const
export type Language = (typeof LANGUAGES)[number]

const capitalize = (w: string) => w.charAt(0).toUpperCase() + w.slice(1)
const past = (verb: string) => (verb.endsWith('e') ? `${verb}d` : /[^aeiou]y$/.test(verb) ? `${verb.slice(0, -1)}ied` : `${verb}ed`)
/** English -s form, for nouns and third-person verbs alike: retries, indexes, routes. */
const plural = (word: string) => (/[^aeiou]y$/.test(word) ? `${word.slice(0, -1)}ies` : /(s|sh|ch|x)$/.test(word) ? `${word}es` : `${word}s`)
const camel = (rng: Rng) => `${pick(rng, VERBS)}${capitalize(pick(rng, NOUNS))}`
const pascal = (rng: Rng) => `${capitalize(pick(rng, ADJECTIVES))}${capitalize(pick(rng, NOUNS))}`
const snake = (rng: Rng) => `${pick(rng, VERBS)}_${pick(rng, NOUNS)}`

export function sentence(rng: Rng): string {
  const templates = [
    () => `The ${pick(rng, NOUNS)} ${plural(pick(rng, VERBS))} the ${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)} before the ${pick(rng, NOUNS)} is ${past(pick(rng, VERBS))}.`,
    () => `Call \`${camel(rng)}()\` to ${pick(rng, VERBS)} a ${pick(rng, NOUNS)} from the ${pick(rng, NOUNS)}.`,
    () => `Use the \`${pick(rng, NOUNS)}\` option when the ${pick(rng, NOUNS)} must be ${pick(rng, ADJECTIVES)}.`,
    () => `A ${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)} can ${pick(rng, VERBS)} every ${pick(rng, NOUNS)} in one ${pick(rng, NOUNS)}.`,
    () => `If the ${pick(rng, NOUNS)} fails, \`${pascal(rng)}\` will ${pick(rng, VERBS)} the ${pick(rng, NOUNS)} and ${pick(rng, VERBS)} it again.`,
    () => `By default the ${pick(rng, NOUNS)} is ${pick(rng, ADJECTIVES)}; set \`${camel(rng)}\` to change how it ${plural(pick(rng, VERBS))} ${plural(pick(rng, NOUNS))}.`,
  ]
  return pick(rng, templates)()
}

export function paragraph(rng: Rng, sentences = between(rng, 2, 5)): string {
  return Array.from({ length: sentences }, () => sentence(rng)).join(' ')
}

export const sectionTitle = (rng: Rng): string => pick(rng, SECTIONS)
export const topicTitle = (rng: Rng): string => `${capitalize(pick(rng, VERBS))} ${pick(rng, ADJECTIVES)} ${plural(pick(rng, NOUNS))}`

/** A few lines of plausible code in the language, built from the same vocabulary as the prose. */
export function codeSample(rng: Rng, language: Language): string {
  const fn = camel(rng)
  const type = pascal(rng)
  const a = pick(rng, NOUNS)
  const b = pick(rng, NOUNS)
  switch (language) {
    case 'typescript':
      return [
        `import { ${type} } from './${a}.js'`,
        ``,
        `export async function ${fn}(${a}: ${type}, options: { ${b}?: string } = {}): Promise<${type}> {`,
        `  const ${b} = await ${a}.${camel(rng)}(options.${b} ?? '${pick(rng, ADJECTIVES)}')`,
        `  if (!${b}) throw new Error('${pick(rng, NOUNS)} not found')`,
        `  return ${a}.${camel(rng)}(${b})`,
        `}`,
      ].join('\n')
    case 'javascript':
      return [
        `const ${a} = require('${pick(rng, NOUNS)}-${pick(rng, NOUNS)}')`,
        ``,
        `${a}.${camel(rng)}({ ${b}: true, ${pick(rng, NOUNS)}: ${between(rng, 1, 500)} })`,
        `${a}.on('${pick(rng, NOUNS)}', (${b}) => {`,
        `  console.log('${pick(rng, VERBS)}', ${b}.${camel(rng)}())`,
        `})`,
      ].join('\n')
    case 'python':
      return [
        `from ${a} import ${type}`,
        ``,
        `def ${snake(rng)}(${a}, ${b}=None):`,
        `    """${capitalize(pick(rng, VERBS))} the ${pick(rng, NOUNS)}."""`,
        `    result = ${type}(${b}).${snake(rng)}(${a})`,
        `    return result.${snake(rng)}()`,
      ].join('\n')
    case 'bash':
      return [`npm install ${a}-${b}`, `npx ${a} ${pick(rng, VERBS)} --${pick(rng, NOUNS)} ./${b}`, `export ${a.toUpperCase()}_${b.toUpperCase()}=${between(rng, 1, 9000)}`].join('\n')
    case 'go':
      return [
        `func ${capitalize(fn)}(${a} *${type}) (*${capitalize(b)}, error) {`,
        `\t${b}, err := ${a}.${capitalize(camel(rng))}(ctx)`,
        `\tif err != nil {`,
        `\t\treturn nil, fmt.Errorf("${pick(rng, VERBS)} ${b}: %w", err)`,
        `\t}`,
        `\treturn ${b}, nil`,
        `}`,
      ].join('\n')
    case 'rust':
      return [
        `pub fn ${snake(rng)}(${a}: &${type}) -> Result<${capitalize(b)}, Error> {`,
        `    let ${b} = ${a}.${snake(rng)}()?;`,
        `    Ok(${b}.${snake(rng)}())`,
        `}`,
      ].join('\n')
    case 'json':
      return JSON.stringify({ [a]: { [b]: pick(rng, ADJECTIVES), [pick(rng, NOUNS)]: between(rng, 1, 100) }, [camel(rng)]: true }, null, 2)
    case 'yaml':
      return [`${a}:`, `  ${b}: ${pick(rng, ADJECTIVES)}`, `  ${camel(rng)}: ${between(rng, 1, 100)}`, `  ${pick(rng, NOUNS)}:`, `    - ${pick(rng, NOUNS)}`].join('\n')
  }
}

/** A question as a developer would ask it; most reuse identifiers the docs contain. */
export function question(rng: Rng): string {
  const templates = [
    () => `how do I ${pick(rng, VERBS)} a ${pick(rng, ADJECTIVES)} ${pick(rng, NOUNS)}`,
    () => `${camel(rng)} example`,
    () => `configure ${pick(rng, NOUNS)} ${pick(rng, NOUNS)} options`,
    () => `${pick(rng, VERBS)} ${pick(rng, NOUNS)} with ${pick(rng, NOUNS)} in ${pick(rng, LANGUAGES)}`,
    () => `why does ${pascal(rng)} ${pick(rng, VERBS)} the ${pick(rng, NOUNS)} twice`,
    () => `${pick(rng, NOUNS)} ${pick(rng, NOUNS)} ${pick(rng, VERBS)} error handling`,
  ]
  return pick(rng, templates)()
}
