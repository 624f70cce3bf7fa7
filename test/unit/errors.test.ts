import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES, LecternError } from '../../src/errors.js'

const doc = fs.readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
const documented = new Map(
  [...doc.matchAll(/^\| `(\w+)` \| (\d+) \| (\d+) \|/gm)].map((m) => [m[1], { status: Number(m[2]), exit: Number(m[3]) }]),
)

describe('error catalogue', () => {
  it('documents every code with its status and exit code, and nothing else', () => {
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(documented.get(code), `docs/errors.md row for ${code}`).toEqual({ status: spec.status, exit: spec.exit })
    }
    expect([...documented.keys()].sort()).toEqual(Object.keys(ERROR_CODES).sort())
  })

  it('builds the {error, message} body, with extra fields such as redirectUrl', () => {
    const err = new LecternError('library_redirected', 'moved', { redirectUrl: '/a/b' })
    expect(err.status).toBe(301)
    expect(err.toBody()).toEqual({ error: 'library_redirected', message: 'moved', redirectUrl: '/a/b' })
  })

  it('keeps the spec statuses of section 7.2', () => {
    const spec: Record<string, number> = {
      validation_error: 400, invalid_library_id: 400, invalid_api_key: 401, access_denied: 403, forbidden: 403,
      library_not_found: 404, tag_not_found: 404, no_snippets_found: 404, no_libraries_found: 404,
      duplicate_repo: 409, rate_limit_exceeded: 429, internal_error: 500, timeout: 504,
    }
    for (const [code, status] of Object.entries(spec)) expect(ERROR_CODES[code as keyof typeof ERROR_CODES].status).toBe(status)
  })
})
