/** The URL the PostgreSQL tools (pg_dump, pg_restore, psql) are given, from the one the store connects with. */
import { describe, expect, it } from 'vitest'
import { passwordsApart } from '../../src/store/postgres-dump.js'

describe('a database URL for the PostgreSQL tools', () => {
  it('moves the passwords into the environment, decoded, and keeps the rest', () => {
    expect(passwordsApart('postgres://lectern:p%40ss@db.internal:5432/lectern?sslpassword=k3y&application_name=x')).toEqual({
      url: 'postgres://lectern@db.internal:5432/lectern?application_name=x',
      env: { PGPASSWORD: 'p@ss', PGSSLPASSWORD: 'k3y' },
    })
    expect(passwordsApart('postgres://lectern@db/lectern?password=s3cret')).toEqual({ url: 'postgres://lectern@db/lectern', env: { PGPASSWORD: 's3cret' } })
  })

  it('takes a password that is not valid percent-encoding as written, rather than failing', () => {
    expect(passwordsApart('postgres://lectern:100%zz@db/lectern').env).toEqual({ PGPASSWORD: '100%zz' })
  })

  it("says node-postgres's TLS options as libpq reads them", () => {
    expect(passwordsApart('postgres://lectern@db/lectern?sslmode=no-verify').url).toBe('postgres://lectern@db/lectern?sslmode=require')
    expect(passwordsApart('postgres://lectern@db/lectern?ssl=true').url).toBe('postgres://lectern@db/lectern?sslmode=require')
    expect(passwordsApart('postgres://lectern@db/lectern?ssl=true&sslmode=verify-full').url).toBe('postgres://lectern@db/lectern?sslmode=verify-full')
    expect(passwordsApart('postgres://lectern@db/lectern?ssl=false').url).toBe('postgres://lectern@db/lectern')
  })
})
