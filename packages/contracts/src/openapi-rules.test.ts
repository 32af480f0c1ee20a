import { describe, expect, it } from 'vitest';
import { AddressInput, CreateCustomerBody, electronicAddressProblem } from './index.ts';
import { CreateInvoiceBody, DiscountInput, InvoiceItemInput } from './billing/invoices.ts';
import { UpdateAccountBody } from './billing/account.ts';
import { CreateProductBody } from './catalog/products.ts';
import { CreatePriceBody } from './catalog/prices.ts';
import { CreateWebhookEndpointBody } from './notifications/webhook-endpoints.ts';
import { buildOpenApiDocument } from './openapi.ts';

type Node = Record<string, any>;
const document = buildOpenApiDocument() as unknown as Node;
const schemas = document.components.schemas as Record<string, Node>;
const operations = Object.entries(document.paths as Record<string, Record<string, Node>>).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
);
const patternOf = (schema: Node) => new RegExp(schema.pattern as string);

describe('what the document promises every operation', () => {
  it('ends every operation with a default Problem response and declares X-Request-Id on every response', () => {
    for (const { name, operation } of operations) {
      expect(operation.responses.default, name).toEqual({ $ref: '#/components/responses/Error' });
      for (const [status, response] of Object.entries(operation.responses as Record<string, Node>)) {
        const resolved = response.$ref ? document.components.responses[response.$ref.split('/').at(-1)] : response;
        expect(resolved.headers?.['X-Request-Id'], `${name} ${status}`).toEqual({ $ref: '#/components/headers/RequestId' });
      }
    }
    expect(document.components.responses.Error.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
    expect(document.components.responses.Error.headers.Allow).toBeDefined();
    expect(document.components.responses.RateLimited.headers).toMatchObject({ 'Retry-After': {}, 'X-RateLimit-Limit': {}, 'X-RateLimit-Remaining': {}, 'X-RateLimit-Reset': {} });
  });

  it('declares ETag, Content-Disposition, If-None-Match and 304 on stored downloads, Idempotent-Replayed on keyed writes', () => {
    for (const { name, operation } of operations) {
      const ok = operation.responses['200'] ?? operation.responses['201'] ?? operation.responses['202'] ?? operation.responses['204'];
      const media = Object.keys(ok?.content ?? {});
      if (media.some((type) => type === 'application/pdf' || type === 'application/xml')) {
        expect(Object.keys(ok.headers), name).toEqual(expect.arrayContaining(['ETag', 'Content-Disposition']));
        expect(operation.responses['304'], name).toBeDefined();
        expect(operation.parameters.some((parameter: Node) => parameter.in === 'header' && parameter.name === 'If-None-Match'), name).toBe(true);
      }
      const keyed = (operation.parameters ?? []).some((parameter: Node) => parameter.name === 'Idempotency-Key');
      expect(Boolean(ok?.headers?.['Idempotent-Replayed']), name).toBe(keyed);
    }
  });

  it('gives the public page as an HTML string, PDFs as bytes and e-invoices as XML text', () => {
    expect(document.paths['/i/{token}'].get.responses['200'].content['text/html; charset=utf-8'].schema).toEqual({ type: 'string' });
    expect(document.paths['/api/v1/invoices/{id}/pdf'].get.responses['200'].content['application/pdf'].schema).toMatchObject({ type: 'string', format: 'binary' });
    expect(document.paths['/api/v1/invoices/{id}/einvoice'].get.responses['200'].content['application/xml'].schema).toEqual({ type: 'string' });
  });

  it('writes boolean query parameters as booleans', () => {
    const parameter = (path: string, name: string) => document.paths[path].get.parameters.find((candidate: Node) => candidate.name === name);
    expect(parameter('/api/v1/customers', 'include_deleted').schema.type).toBe('boolean');
    expect(parameter('/api/v1/products', 'active').schema.type).toBe('boolean');
    expect(parameter('/api/v1/prices', 'active').schema.type).toBe('boolean');
  });

  it('names "*" of enabled_events, describes Problem.type as sent, and keeps event types and problem codes open', () => {
    expect(schemas.CreateWebhookEndpointBody!.properties.enabled_events.items.anyOf[0]).toMatchObject({ title: 'AllEvents', enum: ['*'] });
    expect(schemas.Problem!.properties.type.description).toContain('https://docs.invoicing.dev/errors#<code>');
    for (const name of ['EventType', 'ProblemCode']) expect(schemas[name]!.anyOf[1], name).toMatchObject({ type: 'string' });
    expect(document.info.description).toContain('How this API grows');
  });

  it('leaves every answer open to fields added later, as the growth rule says, and closes request bodies', () => {
    const reached = new Set<string>();
    const closed: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (node === null || typeof node !== 'object') return;
      const { $ref, additionalProperties } = node as Node;
      if (additionalProperties === false) closed.push(where);
      if (typeof $ref === 'string' && $ref.startsWith('#/components/schemas/')) {
        const name = $ref.split('/').at(-1)!;
        if (!reached.has(name)) {
          reached.add(name);
          walk(schemas[name], name);
        }
      }
      for (const child of Object.values(node)) walk(child, where);
    };
    for (const { name, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, Node>)) {
        const resolved = response.$ref ? document.components.responses[response.$ref.split('/').at(-1)] : response;
        for (const media of Object.values((resolved.content ?? {}) as Record<string, Node>)) walk(media.schema, `${name} ${status}`);
      }
    }
    expect(reached).toEqual(expect.objectContaining({ size: expect.any(Number) }));
    for (const name of ['Invoice', 'Customer', 'Event', 'Problem', 'InvoicePage']) expect(reached.has(name), name).toBe(true);
    expect(closed).toEqual([]);
    for (const name of ['CreateInvoiceBody', 'CreateCustomerBody', 'UpdateAccountBody', 'AddressInput']) expect(schemas[name]!.additionalProperties, name).toBe(false);
  });

  it('has one component per enum concept and per envelope', () => {
    for (const name of ['InvoiceStatus', 'TaxCategory', 'PriceType', 'CurrencyCode', 'CountryCode', 'WebhookEventType', 'InvoiceData', 'InvoicePage', 'CustomerPage']) expect(schemas[name], name).toBeDefined();
    const json = JSON.stringify(document.paths);
    expect(json).not.toContain('"enum":["draft","open"');
  });

  it('writes each list of values once: every enum a generator turns into a type is one place of the document', () => {
    const places = new Map<string, string[]>();
    const walk = (node: unknown, path: string[]) => {
      if (node === null || typeof node !== 'object') return;
      const { enum: values } = node as Node;
      // Conditions (if/then/else, not) restate a value to test it; a generator makes no type of them.
      if (Array.isArray(values) && values.length > 1 && !path.some((step) => ['if', 'then', 'else', 'not'].includes(step))) {
        const key = JSON.stringify([...values].sort());
        places.set(key, [...(places.get(key) ?? []), path.join('/')]);
      }
      for (const [name, child] of Object.entries(node)) walk(child, [...path, name]);
    };
    walk(document, []);
    const repeated = [...places.values()].filter((found) => found.length > 1);
    // The open EventType of events lists the values of the closed WebhookEventType an endpoint subscribes to.
    expect(repeated).toEqual([['components/schemas/WebhookEventType', 'components/schemas/EventType/anyOf/0']]);
  });
});

describe('the document and the server say the same thing', () => {
  const lines = schemas.InvoiceItemInput!.oneOf as Node[];
  const adHoc = lines.find((line) => line.title === 'AdHocLineInput')!;
  const catalog = lines.find((line) => line.title === 'CatalogLineInput')!;

  it('states the two kinds of line and the one-of discount', () => {
    expect(catalog.required).toEqual(['price']);
    expect(catalog.properties.unit_amount).toBeUndefined();
    expect(adHoc.required).toEqual(['description']);
    expect(adHoc.allOf[0]).toMatchObject({ if: { required: ['unit_amount_decimal'] }, then: { properties: { unit_amount: { not: {} } } }, else: { required: ['unit_amount'] } });
    expect(InvoiceItemInput.safeParse({ description: 'x', unit_amount: 5, quantity: 2, quantity_decimal: '2' }).success).toBe(false);
    expect(InvoiceItemInput.safeParse({ description: 'x', unit_amount: 5, unit_amount_decimal: '5' }).success).toBe(false);
    expect(InvoiceItemInput.safeParse({ description: 'x', unit_amount_decimal: '0.125', quantity_decimal: '7.5' }).success).toBe(true);
    expect(adHoc.properties.price).toBeUndefined();
    expect(schemas.DiscountInput!.oneOf.map((shape: Node) => shape.required)).toEqual([['amount_off'], ['percent_off']]);
    expect(InvoiceItemInput.safeParse({ price: 'price_0190f3e2c1b27a8e9d1f3c4b5a697887', unit_amount: 5 }).success).toBe(false);
    expect(InvoiceItemInput.safeParse({ description: 'x' }).success).toBe(false);
    expect(DiscountInput.safeParse({ amount_off: 1, percent_off: 1 }).success).toBe(false);
  });

  it.each([
    ['unit_code', adHoc.properties.unit_code, ['HUR', 'c62', 'KG'], ['H', 'HOUR', 'h-r']],
    ['price ID', catalog.properties.price, ['price_0190f3e2c1b27a8e9d1f3c4b5a697887', '0190F3E2-C1B2-7A8E-9D1F-3C4B5A697887'], ['cus_0190f3e2c1b27a8e9d1f3c4b5a697887', 'price_0190F3E2C1B27A8E9D1F3C4B5A697887', 'price_x']],
  ])('%s: its pattern takes what the server takes', (_name, schema, good, bad) => {
    for (const value of good) expect(patternOf(schema).test(value), value).toBe(true);
    for (const value of bad) expect(patternOf(schema).test(value), value).toBe(false);
    const line = (value: string) => (schema === catalog.properties.price ? { price: value } : { description: 'x', unit_amount: 1, unit_code: value });
    for (const value of good) expect(InvoiceItemInput.safeParse(line(value)).success, value).toBe(true);
    for (const value of bad) expect(InvoiceItemInput.safeParse(line(value)).success, value).toBe(false);
  });

  it('states the tax category rules of an ad-hoc line as conditions the server applies', () => {
    const line = { description: 'x', unit_amount: 100 };
    expect(InvoiceItemInput.safeParse({ ...line, tax_category: 'S' }).success).toBe(false);
    expect(InvoiceItemInput.safeParse({ ...line, tax_category: 'AE', tax_rate: 0 }).success).toBe(false);
    expect(InvoiceItemInput.safeParse({ ...line, tax_category: 'AE', tax_rate: 0, tax_exemption_reason: 'Reverse charge' }).success).toBe(true);
    expect(JSON.stringify(adHoc.allOf)).toContain('"exclusiveMinimum":0');
  });

  it('refuses email addresses whose domain is no host name, in the schema and the document', () => {
    for (const email of ['billing@acme-.example', `billing@${'a'.repeat(64)}.example`, 'billing@-acme.example', 'billing@acme.e']) {
      expect(CreateCustomerBody.safeParse({ name: 'A', email }).success, email).toBe(false);
      // An electronic address is any text in the body (its scheme may be another than email), and
      // refused as stored, by billing's account and catalog's customer rules alike, when it is to be an email.
      expect(UpdateAccountBody.safeParse({ electronic_address: email }).success, email).toBe(true);
      expect(electronicAddressProblem(email, null), email).toContain('must be an email address');
      expect(electronicAddressProblem(email, 'EM'), email).toContain('must be an email address');
      expect(electronicAddressProblem(email, '0204'), email).toBeNull();
    }
    expect(electronicAddressProblem('billing@acme.example', null)).toBeNull();
    expect(CreateCustomerBody.safeParse({ name: 'A', email: `billing@${'a'.repeat(63)}.example` }).success).toBe(true);
    const email = schemas.CreateCustomerBody!.properties.email.anyOf[0];
    expect(patternOf(email).test('billing@acme-.example')).toBe(false);
    expect(patternOf(email).test('billing@acme.example')).toBe(true);
  });

  it('checks countries against ISO 3166-1 and lists them, any case', () => {
    expect(AddressInput.safeParse({ country: 'ZZ' }).success).toBe(false);
    expect(AddressInput.safeParse({ country: 'de' }).data?.country).toBe('DE');
    const [upper, anyCase] = schemas.CountryCode!.anyOf as Node[];
    expect(upper!.enum).toContain('DE');
    expect(upper!.enum).not.toContain('ZZ');
    expect(patternOf(anyCase!).test('dE')).toBe(true);
    expect(patternOf(anyCase!).test('zz')).toBe(false);
  });

  it('lists the currencies the server accepts', () => {
    const [upper, anyCase] = schemas.CurrencyCode!.anyOf as Node[];
    expect(upper!.enum).toEqual(expect.arrayContaining(['EUR', 'USD', 'JPY']));
    expect(upper!.enum).not.toContain('XXX');
    expect(CreateInvoiceBody.safeParse({ customer: 'cus_0190f3e2c1b27a8e9d1f3c4b5a697887', currency: 'XXX', items: [{ description: 'x', unit_amount: 1 }] }).success).toBe(false);
    expect(patternOf(anyCase!).test('eur')).toBe(true);
  });

  it('requires {SEQ:n} in number formats, https for product images and a matching recurring for prices', () => {
    const numberFormat = patternOf(schemas.UpdateAccountBody!.properties.number_format);
    for (const format of ['INV/{YYYY}/{SEQ:4}', 'R-{SEQ:1}']) expect(numberFormat.test(format) && UpdateAccountBody.safeParse({ number_format: format }).success, format).toBe(true);
    for (const format of ['INV/{YYYY}', '{SEQ:1}{SEQ:2}', 'A{SEQ:13}', 'A{DD}{SEQ:2}']) {
      expect(numberFormat.test(format), format).toBe(false);
      expect(UpdateAccountBody.safeParse({ number_format: format }).success, format).toBe(false);
    }
    const image = patternOf(schemas.CreateProductBody!.properties.images.items);
    for (const url of ['http://example.com/a.png', 'https://127.0.0.1/a.png', 'https://localhost/a.png']) {
      expect(image.test(url), url).toBe(false);
      expect(CreateProductBody.safeParse({ name: 'A', images: [url] }).success, url).toBe(false);
    }
    expect(image.test('https://cdn.example.com/a.png')).toBe(true);
    expect(schemas.CreatePriceBody!.allOf[0]).toMatchObject({ then: { required: ['recurring'] }, else: { properties: { recurring: { type: 'null' } } } });
    expect(CreatePriceBody.safeParse({ product: 'prod_0190f3e2c1b27a8e9d1f3c4b5a697887', unit_amount: 1, currency: 'EUR' }).success).toBe(true);
  });

  it('refuses "*" beside other event types, as the document says', () => {
    expect(CreateWebhookEndpointBody.safeParse({ url: 'https://example.com/h', enabled_events: ['*', 'invoice.paid'] }).success).toBe(false);
    expect(schemas.CreateWebhookEndpointBody!.properties.enabled_events.allOf[0]).toEqual({ if: { contains: { const: '*' } }, then: { maxItems: 1 } });
  });
});
