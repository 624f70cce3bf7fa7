/** LECTERN_SECRET_KEY of the tests' PostgreSQL stores: every replica of an install shares one. */
export const TEST_SECRET_KEY = 'a1'.repeat(32)
