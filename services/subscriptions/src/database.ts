import { openDatabase, type KitDatabase, type Orm } from '@invoicing/service-kit';
import type { EntityDatabase } from '@invoicing/service-kit/typed-sql';
import { Migration20270130100000CreateSubscriptions } from './migrations/Migration20270130100000CreateSubscriptions.ts';
import { Migration20270161300000SubscriptionMetadataFilter } from './migrations/Migration20270161300000SubscriptionMetadataFilter.ts';
import { Migration20270162200000SubscriptionTestClock } from './migrations/Migration20270162200000SubscriptionTestClock.ts';
import { SubscriptionEntity, SubscriptionItemEntity, SubscriptionPeriodEntity } from './modules/subscriptions/subscription.entity.ts';

/** The PostgreSQL schema the subscriptions service owns; no other service reads it. */
export const SUBSCRIPTIONS_SCHEMA = 'subscriptions';

export const ENTITIES = [SubscriptionEntity, SubscriptionItemEntity, SubscriptionPeriodEntity];

/** The service's tables for `sqlOf`, in the schema's names, with the kit's (outbox, keyed writes). */
export type SubscriptionsDatabase = EntityDatabase<(typeof ENTITIES)[number]> & KitDatabase;

/** Applied in this order; never generated from the entities. */
export const MIGRATIONS = [
  { name: 'Migration20270130100000CreateSubscriptions', class: Migration20270130100000CreateSubscriptions },
  { name: 'Migration20270161300000SubscriptionMetadataFilter', class: Migration20270161300000SubscriptionMetadataFilter },
  { name: 'Migration20270162200000SubscriptionTestClock', class: Migration20270162200000SubscriptionTestClock },
];

export const openSubscriptionsDatabase = (url: string, poolSize: number): Promise<Orm> =>
  openDatabase({ url, schema: SUBSCRIPTIONS_SCHEMA, entities: ENTITIES, migrations: MIGRATIONS, poolSize });
