import { describe, expect, it } from 'vitest'
import { clientKind } from '../../src/usage/recorder.js'
import { runCli } from '../helpers/cli.js'
import { tmpDataDir } from '../helpers/tmp.js'

describe('lectern config', () => {
  it('sets and reads a setting, and refuses unknown names and bad values', async () => {
    const dataDir = await tmpDataDir()
    const set = await runCli(['config', 'set', 'mcp.requireKey', 'true', '--data-dir', dataDir])
    expect(set.exitCode).toBe(0)
    expect(set.stderr).toBe('')
    expect(JSON.parse((await runCli(['config', 'get', 'mcp.requireKey', '--json', '--data-dir', dataDir])).stdout)).toEqual([
      { name: 'mcp.requireKey', value: true, source: 'stored', description: expect.any(String) },
    ])
    const unknown = await runCli(['config', 'set', 'no.such', '1', '--data-dir', dataDir])
    expect(unknown.exitCode).toBe(2)
    expect(unknown.stderr).toContain('Unknown setting "no.such"')
    const bad = await runCli(['config', 'set', 'mcp.requireKey', 'maybe', '--data-dir', dataDir])
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toContain('Expected true or false')
  })
})

describe('client kinds for usage', () => {
  it('keeps short tokens and folds anything else into "other"', () => {
    expect(clientKind('MCP-Server', 'api')).toBe('mcp-server')
    expect(clientKind(undefined, 'api')).toBe('api')
    expect(clientKind('<script>', 'api')).toBe('other')
    expect(clientKind('x'.repeat(80), 'api')).toBe('other')
  })
})
