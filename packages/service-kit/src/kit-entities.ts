import { EntitySchema, type Options } from '@mikro-orm/postgresql';
import { OutboxEntity } from './events/outbox.entity.ts';
import { KeyedWriteEntity } from './keyed-write.entity.ts';
import type { EntityDatabase } from './typed-sql.ts';

export { KeyedWriteEntity, OutboxEntity };

/** The entities of the kit's own tables: the outbox and the outcomes of keyed writes. */
export const KIT_ENTITIES = [OutboxEntity, KeyedWriteEntity];

/** The Kysely database of the kit's own tables, for the kit's statements on them. */
export type KitDatabase = EntityDatabase<(typeof KIT_ENTITIES)[number]>;

type Entity = NonNullable<Options['entities']>[number];

const tableOf = (entity: Entity): string | undefined => {
  const schema = EntitySchema.is(entity) ? entity : typeof entity === 'function' ? EntitySchema.REGISTRY.get(entity) : undefined;
  return schema?.meta.tableName;
};

/**
 * A service's entities and the kit's. The kit's are metadata only (MikroORM neither creates nor
 * checks tables when it starts), so a service whose schema lacks one of the kit's tables is not
 * affected. A kit entity is left out when one of the service's own maps its table already: the
 * gateway's `IdempotencyRecord` is its own table, which happens to share the name of the kit's.
 */
export const withKitEntities = (entities: readonly Entity[]): Entity[] => {
  const tables = new Set(entities.map(tableOf));
  return [...entities, ...KIT_ENTITIES.filter((entity) => !entities.includes(entity) && !tables.has(entity.meta.tableName))];
};
