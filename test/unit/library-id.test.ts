import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LecternError } from '../../src/errors.js'
import { formatLibraryId, parseLibraryId, slugifySegment } from '../../src/library/id.js'
import { isNamespace, namespacesOf, parseNamespace } from '../../src/library/namespace.js'

describe('parseLibraryId', () => {
  it.each([
    ['/vercel/next.js', { id: '/vercel/next.js', owner: 'vercel', name: 'next.js' }],
    ['/acme/widgets', { id: '/acme/widgets' }],
    ['/websites/uploadcare', { id: '/websites/uploadcare', owner: 'websites' }],
    ['/llmstxt/example_com-llms.txt', { id: '/llmstxt/example_com-llms.txt' }],
    ['/packages/lodash', { id: '/packages/lodash' }],
    ['/npm/left-pad', { id: '/npm/left-pad' }],
    ['/docs/petstore-api', { id: '/docs/petstore-api' }],
    ['/Fastify/Fastify', { id: '/fastify/fastify' }],
    ['vercel/next.js', { id: '/vercel/next.js' }],
  ])('accepts %s', (raw, expected) => {
    expect(parseLibraryId(raw)).toMatchObject(expected)
    expect(parseLibraryId(raw).version).toBeUndefined()
  })

  it.each([
    ['/vercel/next.js/v14.3.0', 'v14.3.0'],
    ['/vercel/next.js@v14.3.0', 'v14.3.0'],
    ['/acme/widgets/1.2.3-beta.1', '1.2.3-beta.1'],
    ['/acme/widgets@Release_2', 'Release_2'],
  ])('accepts the version pin %s', (raw, version) => {
    const ref = parseLibraryId(raw)
    expect(ref.version).toBe(version)
    expect(ref.id).toMatch(/^\/(vercel\/next\.js|acme\/widgets)$/)
  })

  it.each([
    '', '   ', '/', '/acme', 'acme', '/acme/', '//widgets', '/acme/widgets/v1/extra', '/acme/wid gets',
    '/../etc', '/acme/..', '/acme/widgets@', '/acme/widgets/..', '/acme/widgets@v1..2', '/acme/wid%2fgets',
    '/acme/widgets@v1@v2', '/-x/widgets'.replace('-', '.'), `/acme/${'a'.repeat(101)}`, `/${'a'.repeat(600)}`,
  ])('rejects %j with invalid_library_id', (raw) => {
    expect(() => parseLibraryId(raw)).toThrowError(expect.objectContaining({ code: 'invalid_library_id', status: 400 }))
  })

  const segment = fc.stringMatching(/^[a-z0-9_][a-z0-9_-]{0,20}$/)
  const version = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_+-]{0,10}(\.[0-9]{1,3}){0,2}$/)

  it('round-trips both pin forms for any valid owner, name and version', () => {
    fc.assert(
      fc.property(segment, segment, version, fc.constantFrom<'at' | 'slash'>('at', 'slash'), (owner, name, v, form) => {
        const id = formatLibraryId({ id: `/${owner}/${name}`, version: v }, form)
        const ref = parseLibraryId(id)
        expect(ref).toEqual({ id: `/${owner}/${name}`, owner, name, version: v })
        expect(parseLibraryId(formatLibraryId(ref, form === 'at' ? 'slash' : 'at'))).toEqual(ref)
      }),
    )
  })

  it('never throws anything but invalid_library_id, and never accepts a traversal segment', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (raw) => {
        try {
          const ref = parseLibraryId(raw)
          expect(ref.id.split('/')).not.toContain('..')
          expect(ref.id).toMatch(/^\/[a-z0-9_][a-z0-9._-]*\/[a-z0-9_][a-z0-9._-]*$/)
        } catch (err) {
          expect(err).toBeInstanceOf(LecternError)
          expect((err as LecternError).code).toBe('invalid_library_id')
        }
      }),
      { numRuns: 2000 },
    )
  })
})

describe('slugifySegment', () => {
  it('makes a valid segment from any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const slug = slugifySegment(text)
        expect(() => parseLibraryId(`/websites/${slug}`)).not.toThrow()
      }),
    )
  })
  it('keeps readable names', () => {
    expect(slugifySegment('Docs.Example.com')).toBe('docs.example.com')
    expect(slugifySegment('My API (v2)')).toBe('my-api-v2')
  })
})

describe('namespaces of library IDs', () => {
  it('normalise /owner/* and /owner/name/*, and say what is wrong with anything else', () => {
    expect(parseNamespace(' ACME/* ')).toBe('/acme/*')
    expect(parseNamespace('/acme/payments/*')).toBe('/acme/payments/*')
    expect(namespacesOf('/acme/payments')).toEqual(['/acme/payments/*', '/acme/*'])
    expect(() => parseNamespace('/*')).toThrow(/workspace default/)
    for (const raw of ['/acme', '/acme/pay*', '/acme/**', '/acme/*/x', '/a/b/c/*', '/ac me/*']) {
      expect(() => parseNamespace(raw), raw).toThrow(/followed by "\/\*".*Expected \/owner\/\* or \/owner\/name\/\*/)
    }
    expect(['/acme/*', '/acme/pay*', '/acme/**'].every(isNamespace)).toBe(true)
    expect(isNamespace('/acme/payments')).toBe(false)
  })
})
