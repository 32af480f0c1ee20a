// The statements of the catalog's repositories, committed beside each as SQL (see
// packages/testing/src/committed-sql.ts): one example call per method, with fixed arguments, on an
// empty migrated database. `npm run sql:write` writes the files; tests/boundaries/committed-sql.test.ts compares.
//
// The examples run in the order listed, on one database: `add` of a product comes before `add` of
// its price (the foreign key), and the locked change finds the customer `add` stored, so each shows
// the statements of a write that succeeds.
import { CreateCustomerBody, CreatePriceBody, CreateProductBody, toPublicId } from '@invoicing/contracts';
import { moduleExamples, repositoryExamples, type ServiceSqlExamples } from '@invoicing/testing/committed-sql';
import { CATALOG_SCHEMA, openCatalogDatabase } from '../src/database.ts';
import { newCustomer } from '../src/modules/customers/customer.domain.ts';
import { CustomerEntity } from '../src/modules/customers/customer.entity.ts';
import { customerRepository } from '../src/modules/customers/customer.repository.ts';
import { newPrice } from '../src/modules/prices/price.domain.ts';
import { priceRepository } from '../src/modules/prices/price.repository.ts';
import { newProduct } from '../src/modules/products/product.domain.ts';
import { productRepository } from '../src/modules/products/product.repository.ts';
import { changeByPublicId } from '../src/shared/by-public-id.ts';

const WORKSPACE = '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887';
const CUSTOMER = '0190f3e2-d4a1-7b2c-8e3f-1a2b3c4d5e6f';
const PRODUCT = '0190f3e2-e5b2-7c3d-9f4a-2b3c4d5e6f70';
const PRICE = '0190f3e2-f6c3-7d4e-8a5b-3c4d5e6f7081';
const AT = new Date('2026-11-24T10:00:00.000Z');
const POSITION = { created: new Date('2026-11-24T09:00:00.000Z'), id: CUSTOMER };

const customer = {
  ...newCustomer(WORKSPACE, CreateCustomerBody.parse({ name: 'Müller GmbH', email: 'billing@mueller.example', address: { city: 'Berlin', country: 'DE' }, metadata: { order_id: '6735' } }), AT),
  id: CUSTOMER,
};
const product = { ...newProduct(WORKSPACE, CreateProductBody.parse({ name: 'Consulting hour' }), AT), id: PRODUCT };
const price = { ...newPrice(WORKSPACE, CreatePriceBody.parse({ product: PRODUCT, unit_amount: 12_000, currency: 'EUR', tax_rate: 19 }), AT), id: PRICE };

export const CATALOG_SQL_EXAMPLES: ServiceSqlExamples = {
  folder: 'services/catalog',
  database: { schema: CATALOG_SCHEMA, open: openCatalogDatabase },
  repositories: [
    repositoryExamples('src/modules/customers/customer.repository.sql', 'customerRepository (customer.repository.ts)', customerRepository, {
      findInWorkspace: (customers) => customers.findInWorkspace(WORKSPACE, CUSTOMER),
      pageNewestFirstQuery: (customers) => customers.pageNewestFirstQuery(WORKSPACE, { q: 'müller', includeDeleted: false, metadata: { order_id: '6735' } }, POSITION, 20).getResultList(),
      add: (customers, em) => {
        customers.add(customer);
        return em.flush();
      },
      markEmailBounced: (customers) => customers.markEmailBounced(WORKSPACE, 'billing@mueller.example'),
      removeOfTestClock: (customers) => customers.removeOfTestClock(WORKSPACE, CUSTOMER),
    }),
    repositoryExamples('src/modules/products/product.repository.sql', 'productRepository (product.repository.ts)', productRepository, {
      findInWorkspace: (products) => products.findInWorkspace(WORKSPACE, PRODUCT),
      existsInWorkspace: (products) => products.existsInWorkspace(WORKSPACE, PRODUCT),
      pageNewestFirstQuery: (products) => products.pageNewestFirstQuery(WORKSPACE, { q: 'consulting', active: true, metadata: { sku: 'C-1' } }, POSITION, 20).getResultList(),
      add: (products, em) => {
        products.add(product);
        return em.flush();
      },
    }),
    repositoryExamples('src/modules/prices/price.repository.sql', 'priceRepository (price.repository.ts)', priceRepository, {
      findInWorkspace: (prices) => prices.findInWorkspace(WORKSPACE, PRICE),
      pageNewestFirstQuery: (prices) =>
        prices.pageNewestFirstQuery(WORKSPACE, { productId: PRODUCT, active: true, currency: 'EUR', type: 'one_time', metadata: { plan: 'pro', region: 'eu' } }, POSITION, 20).getResultList(),
      add: (prices, em) => {
        prices.add(price);
        return em.flush();
      },
    }),
    moduleExamples('src/shared/by-public-id.sql', 'changeByPublicId (by-public-id.ts): the row locked, changed and committed', {
      changeByPublicId: (em) => changeByPublicId(em, CustomerEntity, 'customer', WORKSPACE, toPublicId('customer', CUSTOMER), () => ({ name: 'Müller & Söhne GmbH' })),
    }),
  ],
};
