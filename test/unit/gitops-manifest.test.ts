/** The GitOps manifest: Context7's format, defaults applied per type, validation strict and whole, fingerprints that follow what an entry says. */
import { describe, expect, it } from 'vitest'
import { parseManifest } from '../../src/gitops/manifest.js'

describe('the GitOps manifest', () => {
  it("reads the reference's format: git by default, repoUrl for url, defaults for the types that have the field", () => {
    const entries = parseManifest(`
defaults:
  branch: ""
  maxPages: 50
repos:
  - url: https://github.com/acme/payments
    folders: [docs]
  - repoUrl: https://github.com/acme/billing
    type: git
    branch: main
  - url: https://docs.acme.com/llms.txt
    type: llmstxt
  - url: https://petstore3.swagger.io/api/v3/openapi.json
    type: openapi
`)
    expect(entries.map((e) => [e.type, e.url, e.fields, e.at])).toEqual([
      ['git', 'https://github.com/acme/payments', { branch: '', folders: ['docs'] }, 'repos[0]'],
      ['git', 'https://github.com/acme/billing', { branch: 'main' }, 'repos[1]'],
      ['llmstxt', 'https://docs.acme.com/llms.txt', { maxPages: 50 }, 'repos[2]'],
      ['openapi', 'https://petstore3.swagger.io/api/v3/openapi.json', {}, 'repos[3]'],
    ])
    expect(parseManifest('repos: []\n')).toEqual([])
  })

  it('fingerprints what an entry says: a changed field changes it, the order of fields does not', () => {
    const [a] = parseManifest('repos:\n  - url: https://github.com/acme/x\n    branch: main\n    folders: [docs]\n')
    const [b] = parseManifest('repos:\n  - folders: [docs]\n    branch: main\n    url: https://github.com/acme/x\n')
    const [c] = parseManifest('repos:\n  - url: https://github.com/acme/x\n    branch: dev\n    folders: [docs]\n')
    expect(a.fingerprint).toBe(b.fingerprint)
    expect(c.fingerprint).not.toBe(a.fingerprint)
  })

  it('refuses the whole manifest, naming every problem and its place', () => {
    const refusal = (text: string) => {
      try {
        parseManifest(text)
      } catch (err) {
        return (err as Error).message
      }
      throw new Error('accepted')
    }
    expect(refusal('repos:\n  - url: https://x.example/\n    type: website\n    maxPages: 0\n')).toContain('repos[0].maxPages')
    expect(refusal('repos:\n  - url: a\n    repoUrl: b\n')).toContain('repos[0]: has both url and repoUrl')
    expect(refusal('repos:\n  - url: https://acme.atlassian.net/wiki\n    type: confluence\n')).toContain('takes spaceKey or pageUrls')
    expect(refusal('repos:\n  - url: https://acme.atlassian.net/wiki\n    type: confluence\n    pageUrls: [https://acme.atlassian.net/wiki/spaces/T/pages/1/X]\n')).toContain('pageUrls is not supported by Lectern yet')
    expect(refusal('defaults:\n  colour: red\nrepos: []\n')).toContain('defaults: "colour" is no field of any type')
    expect(refusal('repo: []\n')).toContain('the manifest: "repo" is not a field of a manifest (defaults, repos)')
    expect(refusal('')).toContain('repos: Required')
    expect(refusal('repos: {}\n')).toContain('repos')
    expect(refusal(`repos:\n${'  - type: svn\n    url: x\n'.repeat(12)}`)).toMatch(/repos\[9\].*and 2 more/)
    expect(refusal('repos: [\n')).toContain('not YAML')
  })
})
