import { describe, expect, it } from 'vitest'
import { isLecternError } from '../../src/errors.js'
import { applyPatch, countAccessible, isAllowed, isOpen, sourceTypeOf, type PolicyPatch, type PolicySubject } from '../../src/tenancy/policies.js'
import { defaultPolicy, parseStoredPolicy } from '../../src/store/policies.js'

const NOW = Date.parse('2026-06-01T00:00:00Z')
const daysAgo = (days: number) => new Date(NOW - days * 86_400_000).toISOString()

const lib = (over: Partial<PolicySubject> = {}): PolicySubject => ({
  id: '/acme/widgets',
  sourceKind: 'github',
  sourceUrl: 'https://github.com/acme/widgets.git',
  isPrivate: false,
  teamPk: null,
  trustScore: 7,
  indexedAt: daysAgo(10),
  ...over,
})

const patched = (...patches: PolicyPatch[]) => patches.reduce(applyPatch, defaultPolicy())

function refusal(run: () => unknown): string {
  try {
    run()
  } catch (err) {
    if (isLecternError(err)) return `${err.code}: ${err.message}`
    throw err
  }
  throw new Error('expected a refusal')
}

describe('policy defaults', () => {
  it('enable every source type and filter no library', () => {
    const policy = defaultPolicy()
    expect(isOpen(policy)).toBe(true)
    expect(Object.values(policy.sourceTypes).every((s) => s.enabled)).toBe(true)
    expect(policy.libraryFilters.mode).toBeNull()
    expect(parseStoredPolicy(null)).toEqual(policy)
    expect(isAllowed(policy, lib(), NOW)).toBe(true)
  })

  it('round-trip through the stored JSON', () => {
    const policy = patched({ sourceTypes: { disable: ['websites'] }, libraryFilters: { mode: 'select', select: { allowedLibraries: { add: ['/acme'] } } } })
    expect(parseStoredPolicy(JSON.stringify(policy))).toEqual(policy)
  })
})

describe('source types', () => {
  it.each([
    [{ sourceKind: 'github' }, 'public_repos'],
    [{ sourceKind: 'gitlab', isPrivate: true }, 'private_sources'],
    [{ sourceKind: 'git', teamPk: 3 }, 'private_sources'],
    [{ sourceKind: 'import' }, 'public_repos'],
    [{ sourceKind: 'openapi', sourceUrl: 'upload:/data/uploads/pets.yaml' }, 'uploaded_files'],
    [{ sourceKind: 'openapi', sourceUrl: 'https://api.example.com/openapi.json' }, 'websites'],
    [{ sourceKind: 'website' }, 'websites'],
    [{ sourceKind: 'llmstxt' }, 'llmstxt'],
    [{ sourceKind: 'confluence' }, 'confluence'],
    [{ sourceKind: 'notion' }, 'private_sources'],
  ] as const)('%o is %s', (over, type) => {
    expect(sourceTypeOf(lib(over))).toBe(type)
  })

  it('a disabled type removes its libraries, public or private', () => {
    const policy = patched({ sourceTypes: { disable: ['public_repos', 'private_sources'] } })
    expect(isAllowed(policy, lib(), NOW)).toBe(false)
    expect(isAllowed(policy, lib({ isPrivate: true, teamPk: 1 }), NOW)).toBe(false)
    expect(isAllowed(policy, lib({ sourceKind: 'llmstxt' }), NOW)).toBe(true)
    expect(isAllowed(applyPatch(policy, { sourceTypes: { enable: ['public_repos'] } }), lib(), NOW)).toBe(true)
  })

  it('refuses the same type enabled and disabled', () => {
    expect(refusal(() => patched({ sourceTypes: { enable: ['websites', 'llmstxt'], disable: ['websites'] } }))).toMatch(/^validation_error: .*websites/)
  })
})

describe('quality mode', () => {
  const quality = (q: NonNullable<NonNullable<PolicyPatch['libraryFilters']>['quality']>) => patched({ libraryFilters: { mode: 'quality', quality: q } })

  it('minimum trust score', () => {
    expect(isAllowed(quality({ minTrustScore: 7 }), lib({ trustScore: 7 }), NOW)).toBe(true)
    expect(isAllowed(quality({ minTrustScore: 8 }), lib({ trustScore: 7 }), NOW)).toBe(false)
  })

  it('freshness: indexed within maxAgeDays; never indexed does not pass', () => {
    expect(isAllowed(quality({ maxAgeDays: 30 }), lib({ indexedAt: daysAgo(29) }), NOW)).toBe(true)
    expect(isAllowed(quality({ maxAgeDays: 30 }), lib({ indexedAt: daysAgo(31) }), NOW)).toBe(false)
    expect(isAllowed(quality({ maxAgeDays: 30 }), lib({ indexedAt: null }), NOW)).toBe(false)
  })

  it('requireVerified: Lectern verifies no library', () => {
    expect(isAllowed(quality({ requireVerified: true }), lib(), NOW)).toBe(false)
  })

  it('unknown stars, licenses and web metrics never clear a set threshold, and concern their own type only', () => {
    expect(isAllowed(quality({ repoFilters: { minStars: 0 } }), lib(), NOW)).toBe(false)
    expect(isAllowed(quality({ repoFilters: { allowedLicenses: { add: ['MIT'] } } }), lib(), NOW)).toBe(false)
    expect(isAllowed(quality({ repoFilters: { minStars: 100 } }), lib({ sourceKind: 'llmstxt' }), NOW)).toBe(true)
    expect(isAllowed(quality({ websiteFilters: { minBacklinks: 1 } }), lib({ sourceKind: 'website', sourceUrl: 'https://docs.example.com/' }), NOW)).toBe(false)
    expect(isAllowed(quality({ websiteFilters: { minBacklinks: 1 } }), lib(), NOW)).toBe(true)
    expect(isAllowed(quality({ repoFilters: { minStars: null } }), lib(), NOW)).toBe(true)
  })

  it('blocked entries: a library ID, an owner, a domain and its subdomains', () => {
    const policy = quality({ blockedLibraries: { add: ['/acme/widgets', '/beta', 'Example.com'] } })
    expect(policy.libraryFilters.quality.blockedLibraries).toEqual(['/acme/widgets', '/beta', 'example.com'])
    expect(isAllowed(policy, lib(), NOW)).toBe(false)
    expect(isAllowed(policy, lib({ id: '/acme/gadgets' }), NOW)).toBe(true)
    expect(isAllowed(policy, lib({ id: '/beta/anything' }), NOW)).toBe(false)
    expect(isAllowed(policy, lib({ id: '/betamax/x' }), NOW)).toBe(true)
    expect(isAllowed(policy, lib({ id: '/websites/docs', sourceKind: 'website', sourceUrl: 'https://docs.example.com/guide' }), NOW)).toBe(false)
    expect(isAllowed(policy, lib({ id: '/websites/other', sourceKind: 'website', sourceUrl: 'https://notexample.com/' }), NOW)).toBe(true)
  })

  it('excepted libraries bypass the filters, the blocked list and the source types', () => {
    const policy = applyPatch(quality({ minTrustScore: 10, blockedLibraries: { add: ['/acme'] }, exceptedLibraries: { add: ['/acme/widgets'] } }), {
      sourceTypes: { disable: ['public_repos'] },
    })
    expect(isAllowed(policy, lib(), NOW)).toBe(true)
    expect(isAllowed(policy, lib({ id: '/acme/gadgets' }), NOW)).toBe(false)
  })

  it('leaves a teamspace private library to its source type', () => {
    expect(isAllowed(quality({ minTrustScore: 10, blockedLibraries: { add: ['/acme'] } }), lib({ isPrivate: true, teamPk: 4 }), NOW)).toBe(true)
  })
})

describe('select mode', () => {
  it('allows only the listed libraries, by ID, owner or domain', () => {
    const policy = patched({ libraryFilters: { mode: 'select', select: { allowedLibraries: { add: ['/acme/widgets', 'stripe.com'] } } } })
    expect(isAllowed(policy, lib(), NOW)).toBe(true)
    expect(isAllowed(policy, lib({ id: '/acme/gadgets' }), NOW)).toBe(false)
    expect(isAllowed(policy, lib({ id: '/websites/stripe', sourceKind: 'website', sourceUrl: 'https://docs.stripe.com/api' }), NOW)).toBe(true)
  })

  it('mode null clears the filter and keeps the lists', () => {
    const select = patched({ libraryFilters: { mode: 'select', select: { allowedLibraries: { add: ['/acme/widgets'] } } } })
    const cleared = applyPatch(select, { libraryFilters: { mode: null } })
    expect(cleared.libraryFilters.mode).toBeNull()
    expect(cleared.libraryFilters.select.allowedLibraries).toEqual(['/acme/widgets'])
    expect(isAllowed(cleared, lib({ id: '/acme/gadgets' }), NOW)).toBe(true)
  })
})

describe('list operations', () => {
  const list = (op: object, start: string[] = []) =>
    patched({ libraryFilters: { select: { allowedLibraries: { add: start } } } }, { libraryFilters: { select: { allowedLibraries: op } } }).libraryFilters.select.allowedLibraries

  it('add keeps order and skips duplicates; remove removes; clear empties', () => {
    expect(list({ add: ['/b/b', '/a/a', '/b/b'] }, ['/a/a'])).toEqual(['/a/a', '/b/b'])
    expect(list({ remove: ['/a/a', '/not/there'] }, ['/a/a', '/b/b'])).toEqual(['/b/b'])
    expect(list({ add: ['/c/c'], remove: ['/a/a'] }, ['/a/a'])).toEqual(['/c/c'])
    expect(list({ clear: true }, ['/a/a', '/b/b'])).toEqual([])
  })

  it('refuses an entry both added and removed, clear with add or remove, and an entry that is no path or domain', () => {
    expect(refusal(() => list({ add: ['/a/a'], remove: ['/A/a'] }))).toMatch(/^validation_error: allowedLibraries: \/a\/a cannot be both added and removed/)
    expect(refusal(() => list({ clear: true, add: ['/a/a'] }))).toMatch(/^validation_error: .*"clear" cannot be used together/)
    expect(refusal(() => list({ add: ['not a library'] }))).toMatch(/^validation_error: .*neither a library path/)
    expect(refusal(() => list({ add: ['/a/b/c'] }))).toMatch(/^validation_error/)
  })

  it('licenses add and remove as written', () => {
    const policy = patched({ libraryFilters: { quality: { repoFilters: { allowedLicenses: { add: ['MIT', 'Apache-2.0'] } } } } })
    expect(applyPatch(policy, { libraryFilters: { quality: { repoFilters: { allowedLicenses: { remove: ['MIT'] } } } } }).libraryFilters.quality.repoFilters.allowedLicenses).toEqual(['Apache-2.0'])
  })

  it('only the named fields change', () => {
    const before = patched({ libraryFilters: { mode: 'quality', quality: { minTrustScore: 4, maxAgeDays: 365 } } })
    const after = applyPatch(before, { libraryFilters: { quality: { maxAgeDays: null } } })
    expect(after.libraryFilters).toMatchObject({ mode: 'quality', quality: { minTrustScore: 4, maxAgeDays: null } })
  })
})

describe('accessibleLibraryCount', () => {
  it('counts the public libraries the policy lets through, never private ones', () => {
    const subjects = [lib(), lib({ id: '/acme/gadgets', trustScore: 2 }), lib({ id: '/acme/secret', isPrivate: true, teamPk: 1 })]
    expect(countAccessible(defaultPolicy(), subjects, NOW)).toBe(2)
    expect(countAccessible(patched({ libraryFilters: { mode: 'quality', quality: { minTrustScore: 5 } } }), subjects, NOW)).toBe(1)
  })
})
