import { z } from 'zod';
import {
  Address,
  AddressInput,
  BooleanQuery,
  dataOf,
  Livemode,
  Metadata,
  MetadataFilterQuery,
  MetadataInput,
  NOT_BLANK,
  OPTIONAL_TEXT_RULE,
  optionalElectronicAddress,
  optionalElectronicAddressScheme,
  optionalEmail,
  optionalText,
  PageQuery,
  pageOf,
  SearchQuery,
  Timestamp,
} from '../common.ts';
import { IdPathParams, idReference } from '../ids.ts';
import { Locale } from '../locales.ts';
import { optionalIdentifierScheme } from '../billing/business-terms.ts';
import { defineOperation } from '../operation.ts';

/** A person or business that is invoiced. */
export const Customer = z
  .object({
    id: z.string().meta({ example: 'cus_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('customer'),
    livemode: Livemode,
    name: z.string().describe('Full legal or trade name.'),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    tax_id: z.string().nullable().describe('VAT, EIN, GSTIN, ABN and similar; not format-checked.'),
    address: Address,
    electronic_address: z.string().nullable().describe('Where e-invoices are delivered (EN 16931 BT-49); e-invoices use `email` when null.'),
    electronic_address_scheme: z.string().nullable().describe('EAS code of `electronic_address`; null means an email address (`EM`).'),
    buyer_reference: z.string().nullable().describe('Default buyer reference of this customer’s invoices (BT-10): for German public buyers the Leitweg-ID, which XRechnung requires.'),
    identifier: z.string().nullable().describe('Buyer identifier (BT-46), such as a GLN.'),
    identifier_scheme: z.string().nullable().describe('ISO 6523 ICD scheme of `identifier`, such as `0088` (GLN).'),
    contact_name: z.string().nullable().describe('Buyer contact point (BT-56), a person or department.'),
    preferred_locale: z
      .string()
      .nullable()
      .describe('Language and formats of this customer’s invoices, PDFs and e-mails (BCP 47); null: the account’s `locale`.')
      .meta({ example: 'de-DE' }),
    email_status: z
      .enum(['ok', 'bounced'])
      .describe('`bounced` once a mail server refused `email` for good: e-mails to it fail at once (`suppressed`) until `email` changes.'),
    test_clock: z.string().nullable().describe('`clock_` ID of the test clock this test customer lives on: its invoices’ dates, overdue status, reminders and subscription periods follow that clock’s time. Null: real time.'),
    deleted: z.boolean().describe('True once archived.'),
    metadata: Metadata,
    created: Timestamp,
  })
  .meta({ id: 'Customer' });
export type Customer = z.infer<typeof Customer>;

const name = z.string().trim().min(1).max(256).meta({ pattern: NOT_BLANK }).describe('Full legal or trade name; at least 1 character besides spaces.');
const email = optionalEmail();
const phone = optionalText(50);
const taxId = optionalText(50).describe(`The buyer VAT identifier (EN 16931 BT-48) where there is one, such as DE123456789. ${OPTIONAL_TEXT_RULE}`);
const electronicAddress = optionalElectronicAddress();
const electronicAddressScheme = optionalElectronicAddressScheme();
export const BUYER_REFERENCE_MAX = 200;
const buyerReference = optionalText(BUYER_REFERENCE_MAX).describe(
  `Default buyer reference (BT-10) of new invoices, such as the Leitweg-ID 991-12345-67. ${OPTIONAL_TEXT_RULE}`,
);
const einvoiceFields = {
  electronic_address: electronicAddress.optional(),
  electronic_address_scheme: electronicAddressScheme.optional(),
  buyer_reference: buyerReference.optional(),
  identifier: optionalText(100).optional().describe(`Buyer identifier (BT-46); e-invoices give it with \`identifier_scheme\` when set. ${OPTIONAL_TEXT_RULE}`),
  identifier_scheme: optionalIdentifierScheme().optional().describe(`ISO 6523 ICD scheme of \`identifier\`, such as \`0088\` (GLN); only with an \`identifier\` (400 on \`identifier_scheme\` otherwise, checked on the result). ${OPTIONAL_TEXT_RULE}`),
  contact_name: optionalText(200).optional().describe(`Buyer contact point (BT-56). ${OPTIONAL_TEXT_RULE}`),
};
const preferredLocale = Locale.nullable().describe('BCP 47 tag such as `de` or `fr-CH`; null: the account’s `locale`.');

export const CreateCustomerBody = z
  .strictObject({
    name,
    email: email.optional(),
    phone: phone.optional(),
    tax_id: taxId.optional(),
    address: AddressInput.optional(),
    ...einvoiceFields,
    preferred_locale: preferredLocale.optional(),
    metadata: MetadataInput.optional(),
    test_clock: idReference('testClock').optional().describe('A `clock_` ID of a test clock of this test mode (404 when there is none): the customer lives on that clock. Cannot change later.'),
  })
  .meta({
    id: 'CreateCustomerBody',
    examples: [
      { name: 'Müller GmbH', email: 'billing@mueller.example', tax_id: 'DE123456789', address: { line1: 'Hauptstraße 5', postal_code: '50667', city: 'Köln', country: 'DE' } },
      {
        name: 'Stadt Köln',
        address: { line1: 'Willy-Brandt-Platz 2', postal_code: '50679', city: 'Köln', country: 'DE' },
        electronic_address: '991-12345-67',
        electronic_address_scheme: '0204',
        buyer_reference: '991-12345-67',
      },
    ],
  });
export type CreateCustomerBody = z.infer<typeof CreateCustomerBody>;

export const UpdateCustomerBody = z
  .strictObject({
    name: name.optional(),
    email: email.optional(),
    phone: phone.optional(),
    tax_id: taxId.optional(),
    address: AddressInput.optional().describe('Merged by key: only the keys sent change.'),
    ...einvoiceFields,
    preferred_locale: preferredLocale.optional(),
    metadata: MetadataInput.optional(),
  })
  .meta({ id: 'UpdateCustomerBody', examples: [{ email: 'accounts@mueller.example', address: { city: 'Bonn', postal_code: '53111' } }] });
export type UpdateCustomerBody = z.infer<typeof UpdateCustomerBody>;

export const ListCustomersQuery = z.strictObject({
  ...PageQuery.shape,
  q: SearchQuery.optional().describe('Partial, case-insensitive match on name, email and tax ID.'),
  include_deleted: BooleanQuery.default(false).describe('Include archived customers.'),
  ...MetadataFilterQuery.shape,
});
export type ListCustomersQuery = z.infer<typeof ListCustomersQuery>;

const tag = 'Customers';
const service = 'catalog';

export const listCustomers = defineOperation({
  operationId: 'listCustomers',
  summary: 'List customers, newest first',
  tag, service, method: 'GET', path: '/api/v1/customers', scope: 'clients:read', idempotency: 'none',
  query: ListCustomersQuery,
  responses: { 200: { description: 'A page of customers.', schema: pageOf(Customer) } },
});

export const createCustomer = defineOperation({
  operationId: 'createCustomer',
  summary: 'Create a customer',
  description:
    '`electronic_address` must be an email address unless `electronic_address_scheme` names another scheme (400 on `electronic_address` otherwise).',
  tag, service, method: 'POST', path: '/api/v1/customers', scope: 'clients:write', idempotency: 'optional',
  body: CreateCustomerBody,
  errors: [404],
  responses: { 201: { description: 'The new customer.', schema: dataOf(Customer) } },
});

export const retrieveCustomer = defineOperation({
  operationId: 'retrieveCustomer',
  summary: 'Retrieve a customer, also when archived',
  tag, service, method: 'GET', path: '/api/v1/customers/:id', scope: 'clients:read', idempotency: 'none',
  params: IdPathParams,
  responses: { 200: { description: 'The customer.', schema: dataOf(Customer) } },
});

export const updateCustomer = defineOperation({
  operationId: 'updateCustomer',
  summary: 'Update a customer',
  description:
    'Omitted fields keep their values; `address` merges by key; an empty string clears an optional field. `electronic_address` must be an email address unless `electronic_address_scheme` names another scheme, checked on the result (400 on `electronic_address`). A deleted (archived) customer cannot be changed: 409 `invalid_state`, and nothing changes.',
  tag, service, method: 'PATCH', path: '/api/v1/customers/:id', scope: 'clients:write', idempotency: 'optional',
  params: IdPathParams,
  body: UpdateCustomerBody,
  errors: [409],
  responses: { 200: { description: 'The updated customer.', schema: dataOf(Customer) } },
});

export const archiveCustomer = defineOperation({
  operationId: 'archiveCustomer',
  summary: 'Archive (soft-delete) a customer',
  description:
    'Historical invoices keep their customer details; the customer stays retrievable by ID but can no longer be updated. Deleting it again answers 200 with the customer as it is.',
  tag, service, method: 'DELETE', path: '/api/v1/customers/:id', scope: 'clients:write', idempotency: 'optional',
  params: IdPathParams,
  responses: { 200: { description: 'The customer with `deleted` true.', schema: dataOf(Customer) } },
});

export const customerOperations = [listCustomers, createCustomer, retrieveCustomer, updateCustomer, archiveCustomer];
