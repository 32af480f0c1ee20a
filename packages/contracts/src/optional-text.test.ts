import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { UpdateAccountBody } from './billing/account.ts';
import { CreateCustomerBody, UpdateCustomerBody } from './catalog/customers.ts';
import { CreatePriceBody, UpdatePriceBody } from './catalog/prices.ts';
import { CreateProductBody, UpdateProductBody } from './catalog/products.ts';
import { OPTIONAL_TEXT_RULE } from './common.ts';
import { buildOpenApiDocument } from './openapi.ts';

const ADDRESS_KEYS = ['line1', 'line2', 'city', 'state', 'postal_code', 'country'] as const;
const PRODUCT_ID = 'prod_0190f3e2c1b27a8e9d1f3c4b5a697887';

interface Case {
  schema: z.ZodType;
  /** A valid body without the field under test. */
  base: Record<string, unknown>;
  fields: string[];
}

// Every optional text field of customers, products, prices and the account, on create and update.
const CASES: Record<string, Case> = {
  CreateCustomerBody: { schema: CreateCustomerBody, base: { name: 'Ada' }, fields: ['email', 'phone', 'tax_id', ...ADDRESS_KEYS.map((key) => `address.${key}`)] },
  UpdateCustomerBody: { schema: UpdateCustomerBody, base: {}, fields: ['email', 'phone', 'tax_id', ...ADDRESS_KEYS.map((key) => `address.${key}`)] },
  CreateProductBody: { schema: CreateProductBody, base: { name: 'Consulting' }, fields: ['description'] },
  UpdateProductBody: { schema: UpdateProductBody, base: {}, fields: ['description'] },
  CreatePriceBody: { schema: CreatePriceBody, base: { product: PRODUCT_ID, unit_amount: 100, currency: 'EUR' }, fields: ['nickname'] },
  UpdatePriceBody: { schema: UpdatePriceBody, base: {}, fields: ['nickname'] },
  UpdateAccountBody: {
    schema: UpdateAccountBody,
    base: {},
    fields: ['business_name', 'email', 'tax_id', 'payment_instructions', 'brand_color', ...ADDRESS_KEYS.map((key) => `address.${key}`)],
  },
};

const withField = (base: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> => {
  const [head, key] = path.split('.') as [string, string | undefined];
  return key === undefined ? { ...base, [head]: value } : { ...base, [head]: { [key]: value } };
};

const fieldOf = (parsed: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], parsed);

const everyField = Object.entries(CASES).flatMap(([name, { schema, base, fields }]) => fields.map((field) => [name, field, schema, base] as const));

describe('optional text fields: an empty string means null (decisions: "a field that has no value is null")', () => {
  it.each(everyField)('%s %s: "" and a blank string parse to null, like null itself', (_, field, schema, base) => {
    for (const value of ['', '   ', null]) {
      const parsed = schema.safeParse(withField(base, field, value));
      expect(parsed.error, `${JSON.stringify(value)}`).toBeUndefined();
      expect(fieldOf(parsed.data, field), `${JSON.stringify(value)}`).toBeNull();
    }
  });

  it.each([
    [CreateCustomerBody, { name: 'Ada', email: ' ada@example.com ', phone: ' +1 555 ', address: { line1: ' 1 Main St ', country: ' de ' } }, { email: 'ada@example.com', phone: '+1 555', address: { line1: '1 Main St', country: 'DE' } }],
    [UpdateProductBody, { description: '  Hourly work \n' }, { description: 'Hourly work' }],
    [UpdatePriceBody, { nickname: ' Yearly ' }, { nickname: 'Yearly' }],
    [UpdateAccountBody, { brand_color: ' #1a2b3c ', business_name: ' Seller ' }, { brand_color: '#1A2B3C', business_name: 'Seller' }],
  ])('trims a value that is kept, and keeps its own rule (%#)', (schema, body, expected) => {
    expect(schema.parse(body)).toMatchObject(expected);
  });

  it.each([
    [CreateCustomerBody, { name: 'Ada', email: 'not-an-email' }, 'email', 'email'],
    [UpdateAccountBody, { email: 'not-an-email' }, 'email', 'email'],
    [CreateCustomerBody, { name: 'Ada', address: { country: 'DEU' } }, 'address.country', 'ISO 3166-1 alpha-2'],
    [UpdateAccountBody, { brand_color: 'red' }, 'brand_color', 'hex colour'],
    [UpdateCustomerBody, { phone: 'x'.repeat(51) }, 'phone', '50'],
    [UpdateProductBody, { description: 'x'.repeat(501) }, 'description', '500'],
    [UpdatePriceBody, { nickname: 42 }, 'nickname', 'string'],
  ])('still refuses a value that breaks its rule, with that rule in the message (%#)', (schema, body, path, message) => {
    const issues = schema.safeParse(body).error?.issues ?? [];
    expect(issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }))).toEqual([{ path, message: expect.stringContaining(message) }]);
  });

  it.each([
    [CreateCustomerBody, { name: '' }, 'name'],
    [CreateCustomerBody, { name: '   ' }, 'name'],
    [UpdateCustomerBody, { name: '' }, 'name'],
    [CreateProductBody, { name: '' }, 'name'],
    [UpdateProductBody, { name: ' ' }, 'name'],
  ])('keeps refusing an empty required field (%#)', (schema, body, path) => {
    expect(schema.safeParse(body).error?.issues.map((issue) => issue.path.join('.'))).toEqual([path]);
  });

  it('documents a plain text field as a nullable string, and a formatted one as its format, "" or null', () => {
    const schemas = (buildOpenApiDocument() as unknown as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }).components.schemas;
    const nullableText = (maxLength: number) => ({ anyOf: [{ type: 'string', maxLength }, { type: 'null' }] });
    const formattedText = (format: Record<string, unknown>, maxLength: number) => ({
      anyOf: [{ type: 'string', ...format, maxLength }, { const: '' }, { type: 'null' }],
    });
    expect(schemas.UpdateCustomerBody!.properties.phone).toMatchObject(nullableText(50));
    expect(schemas.AddressInput!.properties.line1).toMatchObject(nullableText(200));
    expect(schemas.UpdateProductBody!.properties.description).toMatchObject(nullableText(500));
    expect(schemas.UpdatePriceBody!.properties.nickname).toMatchObject(nullableText(250));
    expect(schemas.CreateCustomerBody!.properties.email).toMatchObject(formattedText({ format: 'email' }, 254));
    expect(schemas.UpdateAccountBody!.properties.email).toMatchObject(formattedText({ format: 'email' }, 254));
    expect(schemas.AddressInput!.properties.country).toMatchObject({ anyOf: [{ $ref: '#/components/schemas/CountryCode' }, { const: '' }, { type: 'null' }] });
    expect(schemas.UpdateAccountBody!.properties.brand_color).toMatchObject(formattedText({ pattern: '^#[0-9A-Fa-f]{6}$' }, 7));
    for (const name of ['CreateCustomerBody', 'UpdateCustomerBody', 'AddressInput', 'UpdateProductBody', 'UpdatePriceBody', 'UpdateAccountBody']) {
      expect(JSON.stringify(schemas[name]), name).toContain(OPTIONAL_TEXT_RULE);
    }
  });
});
