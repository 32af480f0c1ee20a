import type { Orm } from '@invoicing/service-kit';
import { dataSpaceOf } from '@invoicing/service-kit/data-space';
import { ApiKey } from './api-key.entity.ts';
import type { ActiveKey } from './api-key.cache.ts';

/** The key with this id if it exists and is not revoked; what the gateway caches. */
export const findActiveKey = async (orm: Orm, keyId: string): Promise<ActiveKey | undefined> => {
  const row = await orm.em.fork().findOne(ApiKey, { id: keyId, revokedAt: null });
  if (!row) return undefined;
  return {
    keyId: row.id,
    workspaceId: row.workspace.id,
    mode: row.mode,
    spaceId: dataSpaceOf(row.workspace.id, row.mode),
    keyHash: Buffer.from(row.keyHash, 'hex'),
    scopes: new Set(row.scopes),
  };
};
