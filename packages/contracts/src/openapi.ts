import { z } from 'zod';
import { createDocument } from 'zod-openapi';
import type { ZodOpenApiComponentsObject, ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import { Problem, PROBLEM_CONTENT_TYPE } from './errors.ts';
import { OPERATIONS } from './routes.ts';
import { INVOICE_ITEMS_MAX } from './billing/invoices.ts';
import { TEST_CLOCKS_TAG_DESCRIPTION } from './billing/test-clocks.ts';
import type { Operation, OperationResponse } from './operation.ts';
import { componentsReferencedByOverrides, OPEN_ENUM_RULE } from './schema-documentation.ts';

/*
 * The document is generated from the operation table alone: what every operation shares (the
 * `default` Problem response, the error responses and response headers as named components, the
 * conditional-download headers of stored documents, `Idempotent-Replayed` on keyed writes) is
 * derived here from fields an operation already has, so a new operation gets all of it by being
 * declared with `defineOperation`, and its schemas become named components by their `id`.
 */

const ERROR_RESPONSES: Record<number, { id: string; description: string; retryAfter?: boolean; rateLimit?: boolean }> = {
  400: { id: 'BadRequest', description: 'Invalid request: malformed JSON, wrong Content-Type, or a field that breaks a rule (`errors` lists them).' },
  401: { id: 'Unauthenticated', description: 'Missing or invalid API key.' },
  403: { id: 'Forbidden', description: 'The API key lacks the scope this operation needs.' },
  404: { id: 'NotFound', description: 'No such resource in the workspace of the key.' },
  409: { id: 'Conflict', description: 'Invalid state, or an Idempotency-Key reused with another body or still in use.' },
  413: { id: 'PayloadTooLarge', description: 'Body larger than 1 MiB (a bank statement: 10 MB).' },
  428: { id: 'IdempotencyKeyRequired', description: 'Idempotency-Key header required.' },
  429: { id: 'RateLimited', description: 'Rate limit exceeded; wait for `Retry-After` seconds.', retryAfter: true, rateLimit: true },
  503: { id: 'Unavailable', description: 'A dependency is unavailable; retry later (after `Retry-After` seconds when it is sent).', retryAfter: true },
};

const ref = (kind: 'headers' | 'responses' | 'schemas', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Response headers, each declared once and referenced wherever it is sent. */
const HEADERS = {
  'X-Request-Id': { id: 'RequestId', description: 'The request id, on every response: quote it when reporting a problem. A well-formed `X-Request-Id` sent by the client is kept.', schema: { type: 'string' } },
  'Idempotent-Replayed': { id: 'IdempotentReplayed', description: '`true` when this is the recorded response of an earlier request with the same Idempotency-Key and body; absent otherwise.', schema: { type: 'string', enum: ['true'] } },
  ETag: { id: 'ETag', description: 'The SHA-256 (hex) of the bytes, quoted; send it as `If-None-Match` to get 304 while it is current.', schema: { type: 'string' } },
  'Content-Disposition': { id: 'ContentDisposition', description: '`attachment` with a file name made from the invoice number (`Invoice-` and the number, characters a file name cannot hold as dashes), twice as RFC 6266 has it: ASCII in `filename`, UTF-8 in `filename*`.', schema: { type: 'string' }, example: `attachment; filename="Invoice-INV-2026-0042.pdf"; filename*=UTF-8''Invoice-INV-2026-0042.pdf` },
  'Retry-After': { id: 'RetryAfter', description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Limit': { id: 'RateLimitLimit', description: 'Requests allowed per window for this API key (or client address, without a key).', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Remaining': { id: 'RateLimitRemaining', description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  'X-RateLimit-Reset': { id: 'RateLimitReset', description: 'Seconds until the window resets.', schema: { type: 'integer', minimum: 0 } },
} as const;
type HeaderName = keyof typeof HEADERS;

const headersOf = (...names: HeaderName[]) => Object.fromEntries(names.map((name) => [name, ref('headers', HEADERS[name].id)]));

const problemContent = () => ({ [PROBLEM_CONTENT_TYPE]: { schema: Problem } });

/** `components.responses`: one per error status, and the default every operation ends with. */
const errorResponseComponents = (): ZodOpenApiComponentsObject['responses'] => ({
  ...Object.fromEntries(
    Object.values(ERROR_RESPONSES).map(({ id, description, retryAfter, rateLimit }) => [
      id,
      {
        description,
        headers: headersOf('X-Request-Id', ...(retryAfter ? (['Retry-After'] as const) : []), ...(rateLimit ? (['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const) : [])),
        content: problemContent(),
      },
    ]),
  ),
  Error: {
    description: 'Any other error, as a problem document: 500 `internal` (with the request id, nothing else), 405 `method_not_allowed` for a method the path does not take (with `Allow`), 408 on a request too slow to arrive, and any status this document adds later.',
    headers: {
      ...headersOf('X-Request-Id'),
      Allow: { description: 'On a 405: the methods the path takes, such as `GET, HEAD, POST`.', schema: { type: 'string' } },
    },
    content: problemContent(),
  },
});

/** How the API grows, written into the document (issue 20): what a client generated today must tolerate. */
export const API_EVOLUTION_RULE = [
  'How this API grows: within `/api/v1` a change never removes or renames an operation, a field or an enum value, never makes an optional request field required, and never narrows what a request accepts.',
  'Added without notice, so clients must tolerate them: new operations, new optional request fields and query parameters, new response fields (ignore fields you do not know), new response headers, and new values of the open enums: event types (`EventType`) and problem codes (`ProblemCode`). ' + OPEN_ENUM_RULE,
  'Every other enum is closed: a new value in it is a breaking change and comes only with a new version (`/api/v2`), served beside `/api/v1`.',
].join(' ');

const IdempotencyKeyHeader = z
  .string()
  .min(1)
  .max(255)
  .meta({ description: 'A unique string per logical request (UUID recommended). The same key with the same body replays the original response with `Idempotent-Replayed: true`; with another body it is a 409. Kept at least 24 hours, per workspace. A 400 (the request was invalid and changed nothing) and a 5xx are not kept: the key may be sent again, with a corrected body after a 400. The service that owns the write records its outcome in the same transaction as the write, so a retry after a timeout, a 503 or a lost connection never makes a second effect: it gets the original response.' });

const IfNoneMatchHeader = z.string().max(200).meta({ description: 'The `ETag` of a copy the client holds: 304 with no body while it is current.' });

const toOpenApiPath = (path: string): string => path.replace(/:([A-Za-z_]+)/g, '{$1}');

/** A download the documents service answers from stored bytes: with an ETag, a file name, and 304 to `If-None-Match`. */
const isStoredDownload = (operation: Operation): boolean =>
  Object.values(operation.responses).some((response) => response.contentType !== undefined && !response.contentType.startsWith('text/html'));

/** Text (HTML, XML) is a string; anything else (PDF) is bytes. */
const bodySchemaOf = (contentType: string): { type: 'string'; format?: string; contentMediaType?: string } =>
  /^text\/|[/+]xml\b/.test(contentType) ? { type: 'string' } : { type: 'string', format: 'binary', contentMediaType: contentType.split(';')[0]! };

const errorStatuses = (operation: Operation): number[] => {
  const statuses = new Set<number>([400, 503, ...(operation.errors ?? [])]);
  if (operation.scope) [401, 403, 429].forEach((s) => statuses.add(s));
  if (operation.params) statuses.add(404);
  if (operation.idempotency !== 'none') statuses.add(409);
  if (operation.idempotency === 'required') statuses.add(428);
  if (operation.body) statuses.add(413);
  return [...statuses].sort();
};

type Status = `${1 | 2 | 3 | 4 | 5}${string}`;

const toResponses = (operation: Operation): ZodOpenApiResponsesObject => {
  const responses: ZodOpenApiResponsesObject = {};
  const download = isStoredDownload(operation);
  const declared: [string, OperationResponse][] = Object.entries(operation.responses);
  if (download && !operation.responses[304]) declared.push(['304', { description: 'The document named by `If-None-Match` is the current one.' }]);
  for (const [status, response] of declared) {
    const success = Number(status) < 300;
    const headers = headersOf(
      'X-Request-Id',
      ...(success && operation.idempotency !== 'none' ? (['Idempotent-Replayed'] as const) : []),
      ...(download && (success || status === '304') ? (['ETag'] as const) : []),
      ...(download && success ? (['Content-Disposition'] as const) : []),
    );
    responses[status as Status] = response.schema
      ? { description: response.description, headers, content: { 'application/json': { schema: response.schema } } }
      : response.contentType
        ? {
            description: response.description,
            headers,
            content: { [response.contentType]: { schema: bodySchemaOf(response.contentType), ...(response.example ? { example: response.example } : {}) } },
          }
        : { description: response.description, headers };
  }
  for (const status of errorStatuses(operation)) {
    const shared = ERROR_RESPONSES[status];
    responses[String(status) as Status] = shared
      ? ref('responses', shared.id)
      : { description: 'Error.', headers: headersOf('X-Request-Id'), content: problemContent() };
  }
  responses.default = ref('responses', 'Error');
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

/** What each tag groups, shown at its head in /docs; the test clocks' tells their flow. */
const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Meta: 'This document.',
  Customers: 'The people and businesses you invoice.',
  Products: 'What you sell.',
  Prices: 'What a product costs: once, or recurring for subscriptions.',
  Invoices: 'Drafts, finalization with gapless numbers, voids, PDFs, e-invoices and public links.',
  Payments: 'Payments received outside the service, recorded by hand.',
  'Bank statements': 'CAMT.053 statements whose credits are matched to open invoices.',
  Subscriptions: 'Recurring prices invoiced once per period.',
  Messages: 'Invoices and reminders sent by e-mail.',
  'Public pages': 'What the public link of an invoice shows, with no key.',
  Numbering: 'The number series and their verification.',
  Account: 'The workspace’s seller details and settings.',
  'Webhook endpoints': 'Where events are delivered, signed.',
  Events: 'What happened in the workspace, as webhooks deliver it.',
  'Test clocks': TEST_CLOCKS_TAG_DESCRIPTION,
};

const toOperationObject = (operation: Operation): ZodOpenApiOperationObject => {
  const headers = {
    ...(operation.idempotency === 'none' ? {} : { 'Idempotency-Key': operation.idempotency === 'required' ? IdempotencyKeyHeader : IdempotencyKeyHeader.optional() }),
    ...(isStoredDownload(operation) ? { 'If-None-Match': IfNoneMatchHeader.optional() } : {}),
  };
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    tags: [operation.tag],
    security: operation.scope ? [{ apiKey: [] }] : [],
    ...(operation.scope ? { 'x-required-scope': operation.scope } : {}),
    ...(operation.testModeOnly ? { 'x-test-mode-only': true } : {}),
    requestParams: {
      ...(operation.params ? { path: operation.params } : {}),
      ...(operation.query ? { query: operation.query } : {}),
      ...(Object.keys(headers).length > 0 ? { header: z.object(headers) } : {}),
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

/** How live and test keys keep their data apart, as the reference states it. */
const TEST_MODE_RULE = [
  'Test mode: every API key is live (`inv_live_…`) or test (`inv_test_…`). A test key reads and writes only its workspace’s test data and a live key only live data: every object carries `livemode` (`true` for live data, `false` for test data), and an ID of the other mode’s data is a 404 `not_found` (in a path, a body or a filter alike), so a list never shows the other mode’s objects.',
  'Each mode has its own invoice number series (a test invoice takes the next test number and the live series never moves; the same number may exist once in each mode), its own webhook endpoints (a test event goes only to test endpoints, and events carry `livemode`), its own events and its own `Idempotency-Key`s. The account (business profile and settings) is per mode too: a test key’s `PATCH /api/v1/account` changes only test mode’s settings, and test mode starts with an empty profile and default settings (fill them in with a test key for test invoices to show them). A test invoice’s public page and PDF are marked as test mode, and test mode’s e-mails are written to files, never sent, unless the operator sets `TEST_MODE_MAIL=smtp`. Test clocks (the “Test clocks” operations, test keys only) let customers live at a clock’s time, advanced on demand.',
  'Operations marked for test keys only (test clocks) answer a live key 403 `forbidden`.',
].join(' ');

/**
 * Response objects stay open (issue 20): the API adds response fields within v1 (API_EVOLUTION_RULE),
 * so a schema of an answer does not say `additionalProperties: false`, which Zod writes for every
 * object it outputs and which would make a client that checks answers refuse a field added later.
 * Request bodies keep it: the server refuses a field it does not know.
 */
const openResponseObjects = ({ jsonSchema, io }: { jsonSchema: Record<string, unknown>; io: 'input' | 'output' }): void => {
  if (io === 'output' && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
};

/**
 * The generator also writes `additionalProperties: false` beside a `$ref` to a described object (a
 * field such as `address: Address.describe(…)`), after any override: the schema referenced says
 * whether it is closed (request bodies are), so the copy beside the reference goes.
 */
const withoutClosingBesideRefs = <T>(node: T): T => {
  if (Array.isArray(node)) node.forEach(withoutClosingBesideRefs);
  else if (node !== null && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (typeof record.$ref === 'string' && record.additionalProperties === false) delete record.additionalProperties;
    Object.values(record).forEach(withoutClosingBesideRefs);
  }
  return node;
};

/** The whole API's OpenAPI 3.1 document, generated from the operation table. */
export const buildOpenApiDocument = ({ serverUrl = 'http://localhost:8080', operations = OPERATIONS }: OpenApiOptions = {}) => {
  const paths: ZodOpenApiPathsObject = {};
  for (const operation of operations) {
    const path = toOpenApiPath(operation.path);
    paths[path] ??= {};
    paths[path][operation.method.toLowerCase() as 'get'] = toOperationObject(operation);
  }
  const document = createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Invoicing API',
      version: '1.0.0',
      description: [
        `Customers, products and prices; invoices with gapless numbers; payments, voids, PDFs, public links and signed webhooks. Amounts are integers in the minor unit of their currency. Limits: a request body is at most 1 MiB (413 \`payload_too_large\`) and nests at most 32 levels (400); an invoice has at most ${INVOICE_ITEMS_MAX} lines (400); a client sends the headers of a request within 10 s and the whole request within 30 s, or gets 408 and the connection is closed.`,
        API_EVOLUTION_RULE,
        'Errors: every non-2xx answer with a body is an `application/problem+json` document (`Problem`); `default` covers the statuses an operation does not list. A method that a known path does not take answers 405 `method_not_allowed` with an `Allow` header naming the methods it takes (see the `default` response of every operation). Every response carries `X-Request-Id`.',
        TEST_MODE_RULE,
        'Downloads: PDFs are bytes (`format: binary`), the public page is HTML text and e-invoices are XML text; each declares its own media type. Stored documents carry an `ETag` and answer 304 to `If-None-Match`.',
      ].join('\n\n'),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl }],
    tags: [...new Set(operations.map((operation) => operation.tag))].map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key, sent as `Authorization: Bearer <key>`: a live key `inv_live_…`, or a test key `inv_test_…` that reads and writes only the workspace’s test data (see “Test mode” above).',
        },
      },
      schemas: Object.fromEntries(componentsReferencedByOverrides()) as ZodOpenApiComponentsObject['schemas'],
      headers: Object.fromEntries(Object.values(HEADERS).map(({ id, ...header }) => [id, header])) as ZodOpenApiComponentsObject['headers'],
      responses: errorResponseComponents(),
    },
    paths,
  }, { override: openResponseObjects });
  return withoutClosingBesideRefs(document);
};
