import { defineEntity, p } from '@mikro-orm/postgresql';
import type { Mode } from '@invoicing/service-kit/data-space';
import { Workspace } from '../workspaces/workspace.entity.ts';

/** An API key: only the SHA-256 hash of the key is kept, looked up by its non-secret id. */
export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.uuid().primary(),
    workspace: p.manyToOne(Workspace),
    keyHash: p.text(),
    scopes: p.array(),
    /** `live` or `test`: whose data the key sees (its workspace's, or the workspace's test data space). */
    mode: p.string().$type<Mode>().default('live'),
    created: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
});

export class ApiKey extends ApiKeySchema.class {}
ApiKeySchema.setClass(ApiKey);
