/** A policy as the policies API answers it: with the number of public libraries it lets through. */
import { ANONYMOUS } from '../../src/library/access.js'
import type { LibraryCatalogue } from '../../src/search/libraries.js'
import { countAccessible } from '../../src/tenancy/policies.js'
import type { Policy } from '../../src/store/policies.js'
import { policySubject } from '../../src/library/visibility.js'

// The public libraries, as anyone may see them, are what accessibleLibraryCount counts.
export async function policyView(catalogue: LibraryCatalogue, policy: Policy) {
  return {
    ...policy,
    accessibleLibraryCount: countAccessible(
      policy,
      (await catalogue.items({ caller: ANONYMOUS })).map((item) => policySubject(item.library, item.versions.find((v) => v.tag === ''))),
    ),
  }
}
