import { migrateDatabase, openDatabase, type EntityDatabase, type Orm } from '@invoicing/service-kit';
import { Migration20261123000000_initial } from './migrations/Migration20261123000000_initial.ts';
import { Migration20270160000000_key_modes } from './migrations/Migration20270160000000_key_modes.ts';
import { ApiKey, type ApiKeySchema } from './modules/api-keys/api-key.entity.ts';
import { IdempotencyRecord, type IdempotencyRecordSchema } from './modules/idempotency/idempotency.entity.ts';
import { Workspace, type WorkspaceSchema } from './modules/workspaces/workspace.entity.ts';

export const SCHEMA = 'gateway';

const entities = [Workspace, ApiKey, IdempotencyRecord];

/** The gateway's tables for `sqlOf<GatewayDatabase>(em)`, in the schema's names. */
export type GatewayDatabase = EntityDatabase<typeof WorkspaceSchema | typeof ApiKeySchema | typeof IdempotencyRecordSchema>;

const migrations = [
  { name: 'Migration20261123000000_initial', class: Migration20261123000000_initial },
  { name: 'Migration20270160000000_key_modes', class: Migration20270160000000_key_modes },
];

/** Opens the gateway's ORM without touching the database: it connects on first use. */
export const openGatewayOrm = (url: string, poolSize: number): Promise<Orm> => openDatabase({ url, schema: SCHEMA, entities, migrations, poolSize });

/** Opens the gateway's ORM and applies its pending migrations (serialized across processes), for the operator command and tests. */
export const openGatewayDatabase = async (url: string, poolSize: number): Promise<Orm> => {
  const orm = await openGatewayOrm(url, poolSize);
  try {
    await migrateDatabase(orm, SCHEMA, url);
  } catch (error) {
    await orm.close();
    throw error;
  }
  return orm;
};
