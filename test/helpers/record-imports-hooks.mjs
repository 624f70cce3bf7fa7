/** The module hooks of record-imports.mjs; they run on node's loader thread. */
import fs from 'node:fs'

let file

export function initialize(data) {
  file = data.file
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context)
  fs.appendFileSync(file, `${resolved.url}\n`)
  return resolved
}
