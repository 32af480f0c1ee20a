// The gateway's repositories, each function called once with fixed arguments, for the committed
// SQL beside each repository (packages/testing/src/committed-sql.ts, `npm run sql:write`).
import { moduleExamples, type ServiceSqlExamples } from '@invoicing/testing/committed-sql';
import { openGatewayOrm, SCHEMA } from '../src/database.ts';
import * as apiKeys from '../src/modules/api-keys/api-key.repository.ts';
import * as idempotency from '../src/modules/idempotency/idempotency.repository.ts';
import * as workspaces from '../src/modules/workspaces/workspace.repository.ts';

const WORKSPACE = '00000000-0000-4000-8000-000000000001';
const claim = { workspaceId: WORKSPACE, key: 'key-1', lockToken: '00000000-0000-4000-8000-000000000002' };

export const GATEWAY_SQL_EXAMPLES: ServiceSqlExamples = {
  folder: 'services/gateway',
  database: { schema: SCHEMA, open: openGatewayOrm },
  repositories: [
    moduleExamples('src/modules/workspaces/workspace.repository.sql', 'workspace.repository.ts', workspaces, {
      findOrCreateWorkspace: (_, orm) => workspaces.findOrCreateWorkspace(orm, 'demo'),
      listWorkspaces: (_, orm) => workspaces.listWorkspaces(orm),
    }),
    moduleExamples('src/modules/api-keys/api-key.repository.sql', 'api-key.repository.ts', apiKeys, {
      findActiveKey: (_, orm) => apiKeys.findActiveKey(orm, '00000000-0000-4000-8000-000000000003'),
    }),
    moduleExamples('src/modules/idempotency/idempotency.repository.sql', 'idempotency.repository.ts', idempotency, {
      claimKey: (_, orm) => idempotency.claimKey(orm, { workspaceId: WORKSPACE, key: claim.key, fingerprint: 'f'.repeat(64), leaseMs: 5_000, ttlHours: 24 }),
      completeClaim: (_, orm) => idempotency.completeClaim(orm, claim, { status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from('{}') }),
      renewClaims: (_, orm) => idempotency.renewClaims(orm, [claim, { ...claim, key: 'key-2' }], 5_000),
      releaseClaim: (_, orm) => idempotency.releaseClaim(orm, claim),
      purgeExpiredRecords: (_, orm) => idempotency.purgeExpiredRecords(orm, 24),
    }),
  ],
};
