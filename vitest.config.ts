import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits on a real browser (test/dashboard) on a machine other suites keep busy.
    expect: { poll: { timeout: 10_000, interval: 100 } },
    pool: 'forks',
    // A worker's test files share its modules (each file still runs anew): loading the program's
    // modules again for every file was a fifth of the suite's time. A file that mocks a module
    // imports what uses it anew (test/parse/markdown-it.test.ts).
    isolate: false,
    // Integration tests spawn git, servers and child processes; two cores cannot run many at once.
    maxWorkers: 2,
    // A developer's shell may name a database of its own: the SQLite run never reaches it.
    // A `lectern serve` a test starts serves from one process unless the test asks for more:
    // the default (one per CPU) forks a process per core for every server, which on two cores
    // cost a quarter of the suite's time; serve-workers.test.ts tests the default and the cluster.
    env: { DATABASE_URL: '', LECTERN_WORKERS: '1' },
  },
})
