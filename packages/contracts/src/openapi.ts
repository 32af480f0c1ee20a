import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { Problem, PROBLEM_CONTENT_TYPE } from './errors.ts';
import { OPERATIONS } from './routes.ts';
import { INVOICE_ITEMS_MAX } from './billing/invoices.ts';
import type { Operation } from './operation.ts';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: malformed JSON, wrong Content-Type, or a field that breaks a rule (`errors` lists them).',
  401: 'Missing or invalid API key.',
  403: 'The API key lacks the scope this operation needs.',
  404: 'No such resource in the workspace of the key.',
  409: 'Invalid state, or an Idempotency-Key reused with another body or still in use.',
  413: 'Body larger than 1 MiB (a bank statement: 10 MB).',
  428: 'Idempotency-Key header required.',
  429: 'Rate limit exceeded; see Retry-After.',
  503: 'A dependency is unavailable; retry later.',
};

const IdempotencyKeyHeader = z
  .string()
  .min(1)
  .max(255)
  .meta({ description: 'A unique string per logical request (UUID recommended). The same key with the same body replays the original response with `Idempotent-Replayed: true`; with another body it is a 409. Kept at least 24 hours, per workspace. A 400 (the request was invalid and changed nothing) and a 5xx are not kept: the key may be sent again, with a corrected body after a 400. The service that owns the write records its outcome in the same transaction as the write, so a retry after a timeout, a 503 or a lost connection never makes a second effect: it gets the original response.' });

const toOpenApiPath = (path: string): string => path.replace(/:([A-Za-z_]+)/g, '{$1}');

const errorStatuses = (operation: Operation): number[] => {
  const statuses = new Set<number>([400, 503, ...(operation.errors ?? [])]);
  if (operation.scope) [401, 403, 429].forEach((s) => statuses.add(s));
  if (operation.params) statuses.add(404);
  if (operation.idempotency !== 'none') statuses.add(409);
  if (operation.idempotency === 'required') statuses.add(428);
  if (operation.body) statuses.add(413);
  return [...statuses].sort();
};

const toResponses = (operation: Operation): ZodOpenApiResponsesObject => {
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    responses[status as `${1 | 2 | 3 | 4 | 5}${string}`] = response.schema
      ? { description: response.description, content: { 'application/json': { schema: response.schema } } }
      : response.contentType
        ? {
            description: response.description,
            content: { [response.contentType]: { schema: { type: 'string', format: 'binary' }, ...(response.example ? { example: response.example } : {}) } },
          }
        : { description: response.description };
  }
  for (const status of errorStatuses(operation)) {
    responses[String(status) as `${1 | 2 | 3 | 4 | 5}${string}`] = {
      description: ERROR_DESCRIPTIONS[status] ?? 'Error.',
      content: { [PROBLEM_CONTENT_TYPE]: { schema: Problem } },
    };
  }
  return responses;
};

/**
 * The first of a request body schema's `examples`, for its media type: the generator drops a
 * schema's examples when it documents the input side of a schema that transforms (`optionalText`,
 * defaults), so the reference would show none.
 */
const bodyExampleOf = (schema: z.ZodType): { example?: unknown } => {
  const examples = z.globalRegistry.get(schema)?.examples;
  return Array.isArray(examples) && examples.length > 0 ? { example: examples[0] } : {};
};

const toOperationObject = (operation: Operation): ZodOpenApiOperationObject => {
  const header =
    operation.idempotency === 'none'
      ? undefined
      : z.object({
          'Idempotency-Key': operation.idempotency === 'required' ? IdempotencyKeyHeader : IdempotencyKeyHeader.optional(),
        });
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    tags: [operation.tag],
    security: operation.scope ? [{ apiKey: [] }] : [],
    ...(operation.scope ? { 'x-required-scope': operation.scope } : {}),
    requestParams: {
      ...(operation.params ? { path: operation.params } : {}),
      ...(operation.query ? { query: operation.query } : {}),
      ...(header ? { header } : {}),
    },
    ...(operation.body
      ? { requestBody: { required: !operation.bodyOptional, content: { [operation.bodyContentType ?? 'application/json']: { schema: operation.body, ...bodyExampleOf(operation.body) } } } }
      : {}),
    responses: toResponses(operation),
  };
};

export interface OpenApiOptions {
  /** Origin the document names as its server, such as `http://localhost:8080`. */
  serverUrl?: string;
  operations?: readonly Operation[];
}

/** The whole API's OpenAPI 3.1 document, generated from the operation table. */
export const buildOpenApiDocument = ({ serverUrl = 'http://localhost:8080', operations = OPERATIONS }: OpenApiOptions = {}) => {
  const paths: ZodOpenApiPathsObject = {};
  for (const operation of operations) {
    const path = toOpenApiPath(operation.path);
    paths[path] ??= {};
    paths[path][operation.method.toLowerCase() as 'get'] = toOperationObject(operation);
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Invoicing API',
      version: '1.0.0',
      description:
        `Customers, products and prices; invoices with gapless numbers; payments, voids, PDFs, public links and signed webhooks. Amounts are integers in the minor unit of their currency. Limits: a request body is at most 1 MiB (413 \`payload_too_large\`) and nests at most 32 levels (400); an invoice has at most ${INVOICE_ITEMS_MAX} lines (400); a client sends the headers of a request within 10 s and the whole request within 30 s, or gets 408 and the connection is closed.`,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key, `inv_live_…`, sent as `Authorization: Bearer <key>`.' },
      },
    },
    paths,
  });
};
