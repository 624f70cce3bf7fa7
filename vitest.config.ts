import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits on a real browser (test/dashboard) on a machine other suites keep busy.
    expect: { poll: { timeout: 10_000, interval: 100 } },
    pool: 'forks',
    // Integration tests spawn git, servers and child processes; two cores cannot run many at once.
    maxWorkers: 2,
    // A developer's shell may name a database of its own: the SQLite run never reaches it.
    env: { DATABASE_URL: '' },
  },
})
