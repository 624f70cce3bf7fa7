/**
 * The API suites again, each app's store on PostgreSQL instead of SQLite (`npm test` runs both):
 * one server for the run (test/helpers/postgres-global.ts), a database per app. The suites listed
 * reach the store only through the app and its Store interface, never through SQLite itself.
 */
import { defineConfig } from 'vitest/config'
import { TEST_SECRET_KEY } from './test/helpers/secret-key.js'
import base from './vitest.config.js'

export const POSTGRES_SUITES = [
  'test/integration/errors.test.ts',
  'test/integration/backup-config-routes.test.ts',
  'test/integration/rate-limit-dashboard.test.ts',
  'test/integration/trust-proxy.test.ts',
  'test/integration/job-end.test.ts',
  'test/integration/dashboard-connections.test.ts',
  'test/integration/plan-change.test.ts',
  'test/integration/request-turns.test.ts',
  'test/integration/extraction-report.test.ts',
  'test/integration/ingest-git.test.ts',
  'test/integration/mcp.test.ts',
  'test/integration/generate-docs.test.ts',
  'test/integration/cloud-accounts.test.ts',
  'test/integration/cloud-readme-access.test.ts',
  'test/integration/refused-keys.test.ts',
  'test/integration/dashboard-setup.test.ts',
  'test/integration/restricted-add.test.ts',
  'test/integration/failed-libraries.test.ts',
  'test/integration/library-access.test.ts',
  'test/integration/usage-report.test.ts',
  'test/integration/context7-clients.test.ts',
  'test/integration/dashboard-readme-access.test.ts',
  'test/integration/web-sources.test.ts',
  'test/integration/dashboard-settings.test.ts',
  'test/integration/plan-rate-limits.test.ts',
  'test/integration/cloud-git-guard.test.ts',
  'test/integration/upload-removal.test.ts',
  'test/integration/answer-order.test.ts',
  'test/integration/dashboard-libraries.test.ts',
  'test/integration/allowed-hosts.test.ts',
  'test/integration/dashboard-doc-pages.test.ts',
  'test/integration/validation-messages.test.ts',
  'test/integration/body-types.test.ts',
  'test/airgap/roundtrip.test.ts',
  'test/dashboard/tenants.test.ts',
  'test/dashboard/team-policies.test.ts',
  'test/dashboard/usage.test.ts',
  'test/dashboard/team-connections.test.ts',
  'test/integration/cloud-policies.test.ts',
  'test/integration/teamspaces-api.test.ts',
  'test/integration/visibility.test.ts',
  'test/integration/private-libraries.test.ts',
  'test/integration/audit.test.ts',
  'test/integration/sso.test.ts',
  'test/integration/gitops.test.ts',
  'test/integration/webhooks.test.ts',
  'test/integration/git-ssh.test.ts',
]

export default defineConfig({
  test: {
    ...base.test,
    include: POSTGRES_SUITES,
    globalSetup: ['test/helpers/postgres-global.ts'],
    env: { ...base.test?.env, LECTERN_TEST_STORE: 'postgres', LECTERN_SECRET_KEY: TEST_SECRET_KEY },
  },
})
