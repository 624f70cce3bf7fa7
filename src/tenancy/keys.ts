/**
 * API keys made and revoked on behalf of someone: every surface (CLI, dashboard, a teamspace's
 * page) goes through here, so each key's creation and revocation is in the audit log with who
 * did it. The key itself never is: its ID and name name it.
 */
import { audit, type AuditContext } from '../audit/log.js'
import type { Store } from '../store/index.js'
import type { ApiKeyInfo, CreatedKey, KeyOwner } from '../store/keys.js'

/** How the audit log names a key. */
export const keyTarget = (key: Pick<ApiKeyInfo, 'id' | 'name'>): string => `key ${key.id} "${key.name}"`

async function ownerOf(store: Store, key: Pick<ApiKeyInfo, 'userId' | 'teamId'>): Promise<Record<string, unknown>> {
  const owner = key.userId === null ? undefined : await store.users.byPk(key.userId)
  return { owner: owner?.email ?? null, ...(key.teamId === null ? {} : { teamId: key.teamId }) }
}

export function createKey(store: Store, context: AuditContext, name: string, owner?: KeyOwner): Promise<CreatedKey> {
  return store.transaction(async () => {
    const created = await store.keys.create(name, owner)
    await audit(store, context, 'key.created', keyTarget(created), await ownerOf(store, created))
    return created
  })
}

export function revokeKey(store: Store, context: AuditContext, id: number): Promise<ApiKeyInfo> {
  return store.transaction(async () => {
    const revoked = await store.keys.revoke(id)
    await audit(store, context, 'key.revoked', keyTarget(revoked), await ownerOf(store, revoked))
    return revoked
  })
}
