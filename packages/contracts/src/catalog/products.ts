import { z } from 'zod';
import { BooleanQuery, dataOf, Livemode, Metadata, MetadataFilterQuery, MetadataInput, NOT_BLANK, OPTIONAL_TEXT_RULE, optionalText, pageOf, PageQuery, SearchQuery, Timestamp } from '../common.ts';
import { IdPathParams } from '../ids.ts';
import { defineOperation } from '../operation.ts';

export const PRODUCT_NAME_MAX = 200;
export const PRODUCT_DESCRIPTION_MAX = 500;
export const PRODUCT_IMAGES_MAX = 8;

/** An item of the catalog; its prices say what it costs. */
export const Product = z
  .object({
    id: z.string().meta({ example: 'prod_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('product'),
    livemode: Livemode,
    name: z.string().describe('Default line description when one of its prices is used on an invoice.'),
    description: z.string().nullable(),
    images: z.array(z.string()).describe('Public HTTPS URLs of product images.'),
    active: z.boolean().describe('True while available in the catalog; false once archived.'),
    metadata: Metadata,
    created: Timestamp,
    updated: Timestamp.describe('Datetime of the latest change.'),
  })
  .meta({ id: 'Product' });
export type Product = z.infer<typeof Product>;

const name = z
  .string()
  .trim()
  .min(1)
  .max(PRODUCT_NAME_MAX)
  .meta({ pattern: NOT_BLANK })
  .describe(`1 to ${PRODUCT_NAME_MAX} characters besides surrounding spaces.`);
const description = optionalText(PRODUCT_DESCRIPTION_MAX).describe(`At most ${PRODUCT_DESCRIPTION_MAX} characters. ${OPTIONAL_TEXT_RULE}`);
// "Public" URLs: a domain name is required, so loopback, IP literals and single-label hosts are refused.
const imageUrl = z
  .url({ protocol: /^https$/i, hostname: z.regexes.domain })
  .max(2048)
  .meta({
    description: 'An `https` URL on a domain name (no IP address, no single-label host).',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]://(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}(?::[1-9][0-9]{0,3})?(?:[/?#][!-~]*)?$',
    example: 'https://cdn.example.com/products/consulting.png',
  });
const images = z
  .array(imageUrl)
  .max(PRODUCT_IMAGES_MAX)
  .describe(`Up to ${PRODUCT_IMAGES_MAX} public HTTPS URLs; the array replaces the stored one as a whole.`);
const active = z.boolean();

export const CreateProductBody = z
  .strictObject({
    name,
    description: description.optional(),
    images: images.default([]).describe(`Up to ${PRODUCT_IMAGES_MAX} public HTTPS URLs; default empty.`),
    active: active.default(true).describe('Default true.'),
    metadata: MetadataInput.optional(),
  })
  .meta({ id: 'CreateProductBody', examples: [{ name: 'Consulting', description: 'One hour of senior consulting.' }] });
export type CreateProductBody = z.infer<typeof CreateProductBody>;

export const UpdateProductBody = z
  .strictObject({
    name: name.optional(),
    description: description.optional(),
    images: images.optional().describe('Replaces the whole array; an empty array removes every image.'),
    active: active.optional().describe('False archives the product, true reactivates it.'),
    metadata: MetadataInput.optional(),
  })
  .meta({ id: 'UpdateProductBody', examples: [{ active: false }] });
export type UpdateProductBody = z.infer<typeof UpdateProductBody>;

export const ListProductsQuery = z.strictObject({
  ...PageQuery.shape,
  q: SearchQuery.optional().describe('Partial, case-insensitive match on name and description.'),
  active: BooleanQuery.optional().describe('`true`: active products only; `false`: archived only; omitted: both.'),
  ...MetadataFilterQuery.shape,
});
export type ListProductsQuery = z.infer<typeof ListProductsQuery>;

const tag = 'Products';
const service = 'catalog';

export const listProducts = defineOperation({
  operationId: 'listProducts',
  summary: 'List products, newest first',
  tag, service, method: 'GET', path: '/api/v1/products', scope: 'products:read', idempotency: 'none',
  query: ListProductsQuery,
  responses: { 200: { description: 'A page of products.', schema: pageOf(Product) } },
});

export const createProduct = defineOperation({
  operationId: 'createProduct',
  summary: 'Create a product',
  tag, service, method: 'POST', path: '/api/v1/products', scope: 'products:write', idempotency: 'optional',
  body: CreateProductBody,
  responses: { 201: { description: 'The new product.', schema: dataOf(Product) } },
});

export const retrieveProduct = defineOperation({
  operationId: 'retrieveProduct',
  summary: 'Retrieve a product, also when archived',
  tag, service, method: 'GET', path: '/api/v1/products/:id', scope: 'products:read', idempotency: 'none',
  params: IdPathParams,
  responses: { 200: { description: 'The product.', schema: dataOf(Product) } },
});

export const updateProduct = defineOperation({
  operationId: 'updateProduct',
  summary: 'Update a product',
  description: 'Omitted fields keep their values; `images` replaces the whole array.',
  tag, service, method: 'PATCH', path: '/api/v1/products/:id', scope: 'products:write', idempotency: 'optional',
  params: IdPathParams,
  body: UpdateProductBody,
  responses: { 200: { description: 'The updated product.', schema: dataOf(Product) } },
});

export const archiveProduct = defineOperation({
  operationId: 'archiveProduct',
  summary: 'Archive a product',
  description: 'Sets `active` to false. Its prices and the invoice lines that use them are unaffected.',
  tag, service, method: 'DELETE', path: '/api/v1/products/:id', scope: 'products:write', idempotency: 'optional',
  params: IdPathParams,
  responses: { 200: { description: 'The product with `active` false.', schema: dataOf(Product) } },
});

export const productOperations = [listProducts, createProduct, retrieveProduct, updateProduct, archiveProduct];
