import { openDatabase, type Orm } from '@invoicing/service-kit';
import { Migration20261123000000CreateCatalog } from './migrations/Migration20261123000000CreateCatalog.ts';
import { Migration20261203000000BlankTextToNull } from './migrations/Migration20261203000000BlankTextToNull.ts';
import { Migration20261205000000IdempotencyRecords } from './migrations/Migration20261205000000IdempotencyRecords.ts';
import { Migration20261210000000CustomerEinvoiceFields } from './migrations/Migration20261210000000CustomerEinvoiceFields.ts';
import { Migration20270120000000CustomerEmailStatus } from './migrations/Migration20270120000000CustomerEmailStatus.ts';
import { Migration20270140000000CustomerPreferredLocale } from './migrations/Migration20270140000000CustomerPreferredLocale.ts';
import { Migration20270151000000CustomerParties } from './migrations/Migration20270151000000CustomerParties.ts';
import { Migration20270161000000CatalogMetadata } from './migrations/Migration20270161000000CatalogMetadata.ts';
import { Migration20270162000000CustomerTestClock } from './migrations/Migration20270162000000CustomerTestClock.ts';
import { CustomerEntity } from './modules/customers/customer.entity.ts';
import { PriceEntity } from './modules/prices/price.entity.ts';
import { ProductEntity } from './modules/products/product.entity.ts';

/** The PostgreSQL schema the catalog owns; no other service reads it. */
export const CATALOG_SCHEMA = 'catalog';

export const ENTITIES = [CustomerEntity, ProductEntity, PriceEntity];

/** Applied in this order; never generated from the entities. */
export const MIGRATIONS = [
  { name: 'Migration20261123000000CreateCatalog', class: Migration20261123000000CreateCatalog },
  { name: 'Migration20261203000000BlankTextToNull', class: Migration20261203000000BlankTextToNull },
  { name: 'Migration20261205000000IdempotencyRecords', class: Migration20261205000000IdempotencyRecords },
  { name: 'Migration20261210000000CustomerEinvoiceFields', class: Migration20261210000000CustomerEinvoiceFields },
  { name: 'Migration20270120000000CustomerEmailStatus', class: Migration20270120000000CustomerEmailStatus },
  { name: 'Migration20270140000000CustomerPreferredLocale', class: Migration20270140000000CustomerPreferredLocale },
  { name: 'Migration20270151000000CustomerParties', class: Migration20270151000000CustomerParties },
  { name: 'Migration20270161000000CatalogMetadata', class: Migration20270161000000CatalogMetadata },
  { name: 'Migration20270162000000CustomerTestClock', class: Migration20270162000000CustomerTestClock },
];

export const openCatalogDatabase = (url: string, poolSize: number): Promise<Orm> =>
  openDatabase({ url, schema: CATALOG_SCHEMA, entities: ENTITIES, migrations: MIGRATIONS, poolSize });
