import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LecternError } from '../../src/errors.js'
import { isSafeRefName, parseRepoUrl, type GitSourceKind } from '../../src/sources/repo-url.js'

function plain(url: string, sourceKind?: GitSourceKind) {
  const { webFileUrl, ...rest } = parseRepoUrl(url, sourceKind)
  return rest
}

function rejection(url: string, sourceKind?: GitSourceKind): LecternError {
  try {
    parseRepoUrl(url, sourceKind)
  } catch (err) {
    expect(err).toBeInstanceOf(LecternError)
    expect((err as LecternError).code).toBe('validation_error')
    return err as LecternError
  }
  throw new Error(`accepted ${url}`)
}

describe('parseRepoUrl: GitHub', () => {
  it.each([
    'https://github.com/Acme/Widgets',
    'https://github.com/Acme/Widgets.git',
    'https://github.com/Acme/Widgets/',
    'https://www.github.com/Acme/Widgets',
    'http://github.com/Acme/Widgets?tab=readme#top',
    '  https://GitHub.com/Acme/Widgets.git/  ',
  ])('normalizes %s', (url) => {
    expect(plain(url)).toEqual({
      sourceKind: 'github',
      host: 'github.com',
      owner: 'Acme',
      repo: 'Widgets',
      cloneUrl: 'https://github.com/Acme/Widgets',
      libraryId: '/acme/widgets',
    })
  })

  it('returns the branch of a /tree/ URL, slashes included', () => {
    expect(parseRepoUrl('https://github.com/acme/widgets/tree/main').branch).toBe('main')
    expect(parseRepoUrl('https://github.com/acme/widgets/tree/release/2.x').branch).toBe('release/2.x')
  })

  it('links files at a commit, with the anchor', () => {
    const ref = parseRepoUrl('https://github.com/acme/widgets')
    expect(ref.webFileUrl('abc123', 'docs/getting started.md', 'install')).toBe(
      'https://github.com/acme/widgets/blob/abc123/docs/getting%20started.md#install',
    )
    expect(ref.webFileUrl('abc123', 'README.md')).toBe('https://github.com/acme/widgets/blob/abc123/README.md')
  })

  it('accepts GitHub Enterprise when the source kind is given', () => {
    expect(plain('https://git.corp.example/acme/widgets', 'github')).toMatchObject({ sourceKind: 'github', host: 'git.corp.example' })
  })
})

describe('parseRepoUrl: GitLab', () => {
  it('keeps nested groups in the clone URL; owner is the first segment, repo the last', () => {
    expect(plain('https://gitlab.com/group/sub/widgets.git')).toEqual({
      sourceKind: 'gitlab',
      host: 'gitlab.com',
      owner: 'group',
      repo: 'widgets',
      cloneUrl: 'https://gitlab.com/group/sub/widgets',
      libraryId: '/group/widgets',
    })
  })

  it('reads the branch after /-/tree/ and links files', () => {
    const ref = parseRepoUrl('https://gitlab.com/group/sub/widgets/-/tree/dev')
    expect(ref.branch).toBe('dev')
    expect(ref.webFileUrl('abc', 'docs/a.md', 'x')).toBe('https://gitlab.com/group/sub/widgets/-/blob/abc/docs/a.md#x')
  })

  it('accepts a self-hosted GitLab when the source kind is given', () => {
    expect(parseRepoUrl('https://git.example.org/a/b', 'gitlab').webFileUrl('c', 'd.md')).toBe('https://git.example.org/a/b/-/blob/c/d.md')
  })
})

describe('parseRepoUrl: Bitbucket and generic git', () => {
  it('parses Bitbucket and links without an anchor', () => {
    const ref = parseRepoUrl('https://bitbucket.org/team/widgets.git')
    expect(plain('https://bitbucket.org/team/widgets.git')).toMatchObject({ sourceKind: 'bitbucket', owner: 'team', repo: 'widgets', libraryId: '/team/widgets' })
    expect(ref.webFileUrl('abc', 'docs/a.md', 'x')).toBe('https://bitbucket.org/team/widgets/src/abc/docs/a.md')
  })

  it('keeps a generic server URL verbatim and has no web links', () => {
    const ref = parseRepoUrl('https://git.example.org/scm/Team/Widgets.git')
    expect(plain('https://git.example.org/scm/Team/Widgets.git')).toEqual({
      sourceKind: 'git',
      host: 'git.example.org',
      owner: 'scm',
      repo: 'Widgets',
      cloneUrl: 'https://git.example.org/scm/Team/Widgets.git',
      libraryId: '/scm/widgets',
    })
    expect(ref.webFileUrl('abc', 'a.md')).toBeUndefined()
  })

  it('accepts SSH for generic git only', () => {
    expect(plain('git@git.example.org:team/widgets.git')).toMatchObject({ sourceKind: 'git', cloneUrl: 'git@git.example.org:team/widgets.git', libraryId: '/team/widgets' })
    expect(plain('ssh://git@git.example.org:2222/team/widgets.git')).toMatchObject({
      sourceKind: 'git',
      host: 'git.example.org:2222',
      cloneUrl: 'ssh://git@git.example.org:2222/team/widgets.git',
    })
    expect(plain('git@github.com:acme/widgets.git', 'git')).toMatchObject({ sourceKind: 'git' })
    expect(rejection('git@github.com:acme/widgets.git').message).toMatch(/SSH/)
    expect(rejection('ssh://git@gitlab.com/a/b.git', 'gitlab').message).toMatch(/SSH/)
  })
})

describe('parseRepoUrl: rejects', () => {
  it('refuses credentials without echoing them', () => {
    for (const url of ['https://user:ghp_tok@github.com/a/b', 'https://ghp_tok@github.com/a/b', 'ssh://git:pw@host/a/b']) {
      const err = rejection(url)
      expect(err.message).toMatch(/gitToken/)
      expect(err.message).not.toContain('ghp_tok')
    }
  })

  it.each([
    ['', /empty/],
    ['not a url', /whitespace|valid URL/],
    ['ftp://github.com/a/b', /scheme/],
    ['file:///tmp/repo', /scheme/],
    ['https://github.com/acme', /owner and a repository/],
    ['https://github.com/', /owner and a repository/],
    ['https://github.com/a/../b', /"\.\."/],
    ['https://github.com/a/%2e%2e/b', /"\.\."/],
    ['https://github.com/a/./b', /"\.\."/],
    ['https://github.com\\a\\b', /backslashes/],
    ['https://github.com/acme/widgets/blob/main/README.md', /branch/],
    ['https://github.com/acme/widgets/tree/', /branch/],
    ['https://bitbucket.org/team/widgets/src/main', /Bitbucket URL/],
    ['https://github.com/ac me/widgets', /whitespace/],
    ['https://github.com/acme/wid%3Bgets', /not a valid/],
    ['https://github.com/acme/.git', /owner and a repository/],
    [`https://github.com/acme/${'x'.repeat(3000)}`, /longer/],
  ])('rejects %s', (url, message) => {
    expect(rejection(url).message).toMatch(message)
  })

  it('rejects a kind that contradicts a known host', () => {
    expect(rejection('https://gitlab.com/a/b', 'github').message).toMatch(/gitlab host/)
  })
})

describe('parseRepoUrl: properties', () => {
  const hosts = fc.constantFrom('github.com', 'gitlab.com', 'bitbucket.org', 'git.example.org')
  const kinds = fc.constantFrom<GitSourceKind | undefined>(undefined, 'github', 'gitlab', 'bitbucket', 'git')
  const segment = fc.string({ unit: fc.constantFrom('a', 'B', '.', '-', '_', '%', '2', 'e', '/', ':', '@', '\\', ' ', '?', '#') })

  it('throws nothing but LecternError', () => {
    const urls = fc.oneof(
      fc.string(),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.tuple(fc.constantFrom('https://', 'http://', 'ssh://', 'git@', 'ftp://', ''), hosts, segment, segment).map(
        ([scheme, host, a, b]) => `${scheme}${host}${scheme === 'git@' ? ':' : '/'}${a}/${b}`,
      ),
    )
    fc.assert(
      fc.property(urls, kinds, (url, kind) => {
        try {
          parseRepoUrl(url, kind)
        } catch (err) {
          return err instanceof LecternError && err.code === 'validation_error'
        }
        return true
      }),
      { numRuns: 2000 },
    )
  })

  it('always yields a lower-case two-part library ID and a clone URL without credentials', () => {
    const name = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,20}$/).filter((s) => !/\.git$/i.test(s) && !s.includes('..'))
    fc.assert(
      fc.property(hosts, name, name, (host, owner, repo) => {
        const ref = parseRepoUrl(`https://${host}/${owner}/${repo}`)
        expect(ref.libraryId).toBe(`/${owner}/${repo}`.toLowerCase())
        expect(ref.cloneUrl).toBe(`https://${host}/${owner}/${repo}`)
      }),
    )
  })
})

describe('isSafeRefName', () => {
  it.each(['main', 'release/2.x', 'v1.2.3', 'feature_x-1'])('accepts %s', (ref) => expect(isSafeRefName(ref)).toBe(true))
  it.each(['', '-x', '--upload-pack=evil', 'a..b', 'a b', 'a/', 'a.lock', '@', 'a@{1}', '.hidden', 'a//b', 'a:b'])(
    'rejects %j',
    (ref) => expect(isSafeRefName(ref)).toBe(false),
  )
})
