/** The audit log's time filters: ages, dates and times read as UTC whatever the host's zone, impossible dates and reversed ranges refused. */
import { describe, expect, it } from 'vitest'
import { auditFilter, parseTimeBound } from '../../src/audit/log.js'

const NOW = new Date('2026-12-03T15:00:00Z')

describe('audit time filters', () => {
  it('reads ages back from now, and dates and times without a zone as UTC, as the log prints them', () => {
    expect(parseTimeBound('90m', 'since', NOW)).toBe('2026-12-03T13:30:00.000Z')
    expect(parseTimeBound('2w', 'since', NOW)).toBe('2026-11-19T15:00:00.000Z')
    expect(parseTimeBound('2026-12-01', 'since')).toBe('2026-12-01T00:00:00.000Z')
    expect(parseTimeBound('2026-12-03 15:09', 'since')).toBe('2026-12-03T15:09:00.000Z')
    expect(parseTimeBound('2026-12-03T23:00', 'since')).toBe('2026-12-03T23:00:00.000Z')
    expect(parseTimeBound('2026-12-03T23:00:05.5Z', 'since')).toBe('2026-12-03T23:00:05.500Z')
    expect(parseTimeBound('2026-12-03T23:00:00+09:00', 'since')).toBe('2026-12-03T14:00:00.000Z')
    expect(parseTimeBound('2026-12-03T01:00-0130', 'since')).toBe('2026-12-03T02:30:00.000Z')
  })

  it('refuses what is no time, and dates that do not exist', () => {
    for (const text of ['yesterday', '2026-02-30', '2026-12-32', '2026-13-01', '2026-12-03T24:00', '2026-12-03T10:61', '7y', '']) {
      expect(() => parseTimeBound(text, 'since', NOW), text).toThrow(/since must be an age/)
    }
  })

  it('refuses a range that ends before it starts, and matches actions in any case', () => {
    expect(() => auditFilter({ since: '7d', until: '30d' }, NOW)).toThrow(/is after until/)
    expect(auditFilter({ action: 'ACCESS' }, NOW).action).toBe('access')
    expect(() => auditFilter({ action: 'nothing' }, NOW)).toThrow(/No audit action/)
  })
})
