import { migrateDatabase, openDatabase, type Orm } from '@invoicing/service-kit';
import { Migration20261123000000_initial } from './migrations/Migration20261123000000_initial.ts';
import { ApiKey } from './modules/api-keys/api-key.entity.ts';
import { IdempotencyRecord } from './modules/idempotency/idempotency.entity.ts';
import { Workspace } from './modules/workspaces/workspace.entity.ts';

export const SCHEMA = 'gateway';

const entities = [Workspace, ApiKey, IdempotencyRecord];

const migrations = [{ name: 'Migration20261123000000_initial', class: Migration20261123000000_initial }];

/** Opens the gateway's ORM and applies its pending migrations (serialized across processes). */
export const openGatewayDatabase = async (url: string, poolSize: number): Promise<Orm> => {
  const orm = await openDatabase({ url, schema: SCHEMA, entities, migrations, poolSize });
  try {
    await migrateDatabase(orm, SCHEMA, url);
  } catch (error) {
    await orm.close();
    throw error;
  }
  return orm;
};
