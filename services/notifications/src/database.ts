import { openDatabase, type EntityDatabase, type Orm } from '@invoicing/service-kit';
import { Migration20261124000000CreateNotifications } from './migrations/Migration20261124000000CreateNotifications.ts';
import { Migration20261201000000EventCorrelation } from './migrations/Migration20261201000000EventCorrelation.ts';
import { Migration20261205200000IdempotencyRecords } from './migrations/Migration20261205200000IdempotencyRecords.ts';
import { Migration20270161200000EndpointMetadata } from './migrations/Migration20270161200000EndpointMetadata.ts';
import { DeliveryAttemptEntity } from './modules/deliveries/delivery-attempt.entity.ts';
import { DeliveryEntity } from './modules/deliveries/delivery.entity.ts';
import { EndpointEntity } from './modules/endpoints/endpoint.entity.ts';
import { EventEntity } from './modules/events/event.entity.ts';

/** The PostgreSQL schema notifications owns; no other service reads it. */
export const NOTIFICATIONS_SCHEMA = 'notifications';

export const ENTITIES = [EndpointEntity, EventEntity, DeliveryEntity, DeliveryAttemptEntity];

/** The schema's tables and columns as Kysely sees them (`deliveries`, `next_attempt_at`), for `sqlOf<NotificationsDatabase>(em)`. */
export type NotificationsDatabase = EntityDatabase<(typeof ENTITIES)[number]>;

/** Applied in this order; never generated from the entities. */
export const MIGRATIONS = [
  { name: 'Migration20261124000000CreateNotifications', class: Migration20261124000000CreateNotifications },
  { name: 'Migration20261201000000EventCorrelation', class: Migration20261201000000EventCorrelation },
  { name: 'Migration20261205200000IdempotencyRecords', class: Migration20261205200000IdempotencyRecords },
  { name: 'Migration20270161200000EndpointMetadata', class: Migration20270161200000EndpointMetadata },
];

export const openNotificationsDatabase = (url: string, poolSize: number): Promise<Orm> =>
  openDatabase({ url, schema: NOTIFICATIONS_SCHEMA, entities: ENTITIES, migrations: MIGRATIONS, poolSize });
