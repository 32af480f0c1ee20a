import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { DocumentedOperation, OpenApiDocument } from './openapi.ts';
import { valueOf, type IdArbitrary } from './schema-arbitrary.ts';
import type { RawRequest } from './send.ts';

/** What the fuzzer may name: real things of its own workspace and of another one. */
export interface FuzzWorld {
  document: OpenApiDocument;
  /** Keys: every scope in the fuzzed workspace, another workspace's, one read-only key. */
  keys: { own: string; foreign: string; readOnly: string };
  own: ReadonlyMap<string, readonly string[]>;
  foreign: ReadonlyMap<string, readonly string[]>;
  ownTokens: readonly string[];
  foreignTokens: readonly string[];
  /** The ID prefix of each collection (`/api/v1/customers` → `cus`). */
  collectionPrefix: ReadonlyMap<string, string>;
}

export interface FuzzRequest extends RawRequest {
  /** How fast-check prints it in a counterexample. */
  [fc.toStringMethod]?: () => string;
  /** The operation whose template the request was built from. */
  operationId: string;
  mutation: string;
}

const PREFIXES = ['cus', 'prod', 'price', 'in', 'ii', 'we', 'evt', 'att', 'key', 'ws', 'pay', 'bst', 'bse'];

const hex32 = fc.stringMatching(/^[0-9a-f]{32}$/);

/** IDs of every kind: this workspace's, another workspace's, every prefix at random, the dashed form. */
const anyId = (world: FuzzWorld, preferred: string | undefined): fc.Arbitrary<string> => {
  const own = preferred ? (world.own.get(preferred) ?? []) : [];
  const arbitraries: fc.WeightedArbitrary<string>[] = [
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PREFIXES), hex32).map(([prefix, hex]) => `${prefix}_${hex}`) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.constantFrom(...[...world.foreign.values()].flat()) },
    { weight: 1, arbitrary: fc.constantFrom(...[...world.own.values()].flat()) },
  ];
  if (own.length > 0) arbitraries.push({ weight: 6, arbitrary: fc.constantFrom(...own) });
  return fc.oneof(...arbitraries);
};

const ids = (world: FuzzWorld): IdArbitrary => (prefix) => anyId(world, prefix);

const collectionOf = (path: string) => path.split('/').slice(0, 4).join('/');

const GARBAGE_SEGMENTS = ['%00', '..%2F..%2Fetc%2Fpasswd', 'null', 'undefined', '0', '-1', "'%3B%20drop%20table%20x%3B--", 'x'.repeat(101), 'x'.repeat(3000), '%E2%80%AE', '%FF%FE', '%C0%AF', 'cus_', 'in_0190F3E2C1B27A8E9D1F3C4B5A697887', '%F0%9F%98%80', '__proto__', 'a%20b', '%25', '~'];

const pathParam = (world: FuzzWorld, operation: DocumentedOperation, name: string): fc.Arbitrary<string> => {
  if (name === 'token') {
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...world.ownTokens) },
      { weight: 1, arbitrary: fc.constantFrom(...world.foreignTokens) },
      { weight: 1, arbitrary: fc.base64String({ minLength: 32, maxLength: 32 }).map((value) => encodeURIComponent(value.replaceAll('+', '-').replaceAll('/', '_').replaceAll('=', ''))) },
    );
  }
  // A bank statement's entry: from the entries' pool (`bse`), not its collection's.
  if (name === 'entry_id') return anyId(world, 'bse');
  // A supporting document of an invoice: from the attachments' pool (`att`).
  if (name === 'att_id') return anyId(world, 'att');
  return anyId(world, world.collectionPrefix.get(collectionOf(operation.path)));
};

const fillPath = (world: FuzzWorld, operation: DocumentedOperation): fc.Arbitrary<string> => {
  const names = operation.pathParams.map((parameter) => parameter.name);
  if (names.length === 0) return fc.constant(operation.path);
  return fc.tuple(...names.map((name) => pathParam(world, operation, name))).map((values) =>
    names.reduce((path, name, index) => path.replace(`{${name}}`, values[index]!), operation.path),
  );
};

const queryOf = (world: FuzzWorld, operation: DocumentedOperation): fc.Arbitrary<[string, string][]> =>
  fc
    .tuple(...operation.queryParams.map((parameter) => fc.option(valueOf(world.document, parameter.schema, ids(world)), { nil: undefined, freq: 2 })))
    .map((values) =>
      operation.queryParams.flatMap((parameter, index) => (values[index] === undefined ? [] : [[parameter.name, String(values[index])] as [string, string]])),
    );

const encodeQuery = (pairs: readonly (readonly [string, string])[]) =>
  pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&')}`;

interface ValidParts {
  operation: DocumentedOperation;
  path: string;
  query: [string, string][];
  body: unknown;
  hasBody: boolean;
}

const validParts = (world: FuzzWorld, operation: DocumentedOperation): fc.Arbitrary<ValidParts> =>
  fc
    .record({
      path: fillPath(world, operation),
      query: queryOf(world, operation),
      body: operation.body ? valueOf(world.document, operation.body.schema, ids(world)) : fc.constant(undefined),
      sendBody: operation.body?.required ? fc.constant(true) : fc.boolean(),
    })
    .map(({ path, query, body, sendBody }) => ({ operation, path, query, body, hasBody: operation.body !== undefined && sendBody }));

const headersFor = (operation: DocumentedOperation, key: string | undefined, idempotencyKey: string | undefined): Record<string, string> => ({
  ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
  ...(operation.idempotencyKey !== 'none' && idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
});

const build = (parts: ValidParts, world: FuzzWorld, mutation: string, overrides: Partial<FuzzRequest> = {}): FuzzRequest => {
  const body = parts.hasBody ? Buffer.from(JSON.stringify(parts.body)) : undefined;
  return {
    operationId: parts.operation.operationId,
    mutation,
    method: parts.operation.method,
    target: `${parts.path}${encodeQuery(parts.query)}`,
    headers: {
      ...headersFor(parts.operation, parts.operation.scope ? world.keys.own : undefined, randomUUID()),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body,
    ...overrides,
    [fc.toStringMethod](this: FuzzRequest) {
      return describeRequest(this);
    },
  };
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Paths to every node of a JSON value, the root included. */
const nodePaths = (value: unknown, path: (string | number)[] = []): (string | number)[][] => {
  const here = [path];
  if (Array.isArray(value)) return [...here, ...value.flatMap((item, index) => nodePaths(item, [...path, index]))];
  if (value !== null && typeof value === 'object') return [...here, ...Object.entries(value).flatMap(([key, item]) => nodePaths(item, [...path, key]))];
  return here;
};

const replaceAt = (value: unknown, path: readonly (string | number)[], replacement: unknown): unknown => {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((item, index) => (index === head ? replaceAt(item, rest, replacement) : item));
  const object = { ...(value as Record<string, unknown>) };
  object[head as string] = replaceAt(object[head as string], rest, replacement);
  return object;
};

const removeAt = (value: unknown, path: readonly (string | number)[]): unknown => {
  if (path.length === 0) return value;
  const parentPath = path.slice(0, -1);
  const last = path.at(-1)!;
  const parent = parentPath.reduce<any>((node, key) => node[key], value);
  if (Array.isArray(parent)) return replaceAt(value, parentPath, parent.filter((_, index) => index !== last));
  const { [last as string]: _removed, ...rest } = parent as Record<string, unknown>;
  return replaceAt(value, parentPath, rest);
};

const objectPaths = (value: unknown) => nodePaths(value).filter((path) => {
  const node = path.reduce<any>((current, key) => current[key], value);
  return node !== null && typeof node === 'object' && !Array.isArray(node);
});

const WRONG_TYPES: Json[] = [null, true, false, 0, -1, 1.5, '', 'x', '1', 'true', [], {}, [1, 'a'], { a: 1 }, 1e308, -1e308, 9007199254740993, 'null', '2026-13-45'];
const BOUNDARIES: Json[] = ['', ' ', '\t', 'a'.repeat(257), 'x'.repeat(5001), 'y'.repeat(10_000), -1, 0, -0, 1, 100.0001, 101, 366, 2 ** 31, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e21, 0.1 + 0.2, 5e-324, 123.456789, '9'.repeat(400)];
const HOSTILE_STRINGS = ['\u0000', 'a\u0000b', '\u0007\u0008\u001b[31mred', '\u202eevil', '\ufeffbom', '\uffff', '\ud800', 'x\udfffy', '\r\nSet-Cookie: a=b', '<script>alert(1)</script>', '{{constructor.constructor("return process")()}}', '${jndi:ldap://x}', "' OR 1=1 --", '%s%n%x', '../../etc/passwd', '😀'.repeat(300), 'é'.normalize('NFD').repeat(100)];
const UNKNOWN_FIELDS = ['unknown_field', 'id', 'object', 'workspace_id', 'status', 'number', 'total', 'created', 'secret', 'constructor', 'prototype'];
const INVALID_UTF8: number[][] = [[0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x80, 0x80]];
const CONTENT_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/jsonx', 'APPLICATION/JSON', 'application/problem+json', 'application/merge-patch+json', 'application/xml', ';;;', 'application/json, text/plain'];
const ODD_METHODS = ['PUT', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'PURGE', 'SEARCH', 'LOCK', 'MKCOL', 'COPY'];
const NOT_JSON = ['', 'null', '[]', '[{}]', '"text"', '123', 'true', '{', '{"a":}', '{"a":1,}', "{'a':1}", '\u0000', 'NaN', '{"a":NaN}', '{"a":Infinity}', '{"a":01}', '{"a":1e99999}', '<xml/>'];
const BAD_KEYS = ['', 'inv_live_', 'inv_live_x', `inv_test_${'a'.repeat(65)}`, `sk_live_${'a'.repeat(65)}`, `inv_live_${'0'.repeat(65)}`, 'Basic dXNlcjpwYXNz', `inv_live_${'A'.repeat(5000)}`, 'null', '\u00e9\u00e8'];

const jsonWithMarker = (body: unknown, marker: string) => JSON.stringify(body).replace(`"${marker}"`, `"${marker}"`);

/** Mutations of a valid request: each names what it does, so the figures can count them. */
const mutations = (world: FuzzWorld, parts: ValidParts, usedKeys: string[]): fc.Arbitrary<FuzzRequest>[] => {
  const { operation } = parts;
  const body = parts.hasBody ? parts.body : {};
  const withBody = (mutation: string, value: unknown) => build({ ...parts, body: value, hasBody: true }, world, mutation);
  const withRawBody = (mutation: string, bytes: Buffer, contentType = 'application/json') => {
    const request = build({ ...parts, hasBody: false }, world, mutation);
    return { ...request, body: bytes, headers: { ...request.headers, 'content-type': contentType } };
  };
  const nodes = nodePaths(body);
  const leaves = nodes.filter((path) => path.length > 0);
  const pickNode = fc.constantFrom(...nodes);
  const pickLeaf = leaves.length > 0 ? fc.constantFrom(...leaves) : fc.constant([] as (string | number)[]);
  const list: fc.Arbitrary<FuzzRequest>[] = [
    fc.tuple(pickLeaf, fc.constantFrom(...WRONG_TYPES)).map(([path, value]) => withBody('wrong type', replaceAt(body, path, value))),
    pickLeaf.map((path) => withBody('missing field', removeAt(body, path))),
    fc.tuple(fc.constantFrom(...objectPaths(body)), fc.constantFrom(...UNKNOWN_FIELDS), fc.constantFrom(...WRONG_TYPES)).map(([path, name, value]) =>
      withBody('unknown field', replaceAt(body, path, { ...(path.reduce<any>((node, key) => node[key], body) as object), [name]: value })),
    ),
    fc.tuple(pickLeaf, fc.constantFrom(...BOUNDARIES)).map(([path, value]) => withBody('boundary value', replaceAt(body, path, value))),
    fc.tuple(pickNode, fc.constantFrom(64, 1_000, 10_000, 100_000), fc.boolean()).map(([path, depth, arrays]) => {
      const marker = `__deep_${randomUUID()}__`;
      const nested = arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      return withRawBody('deep nesting', Buffer.from(jsonWithMarker(replaceAt(body, path, marker), marker).replace(`"${marker}"`, nested)));
    }),
    fc.tuple(pickLeaf, fc.constantFrom(...HOSTILE_STRINGS)).map(([path, value]) => withBody('control characters', replaceAt(body, path, value))),
    fc.tuple(pickLeaf, fc.constantFrom(...INVALID_UTF8)).map(([path, bytes]) => {
      const marker = `__utf8_${randomUUID()}__`;
      const [before, after] = JSON.stringify(replaceAt(body, path, marker)).split(marker) as [string, string | undefined];
      return withRawBody('invalid UTF-8', after === undefined ? Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bytes), Buffer.from('"}')]) : Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]));
    }),
    fc.constantFrom(...WRONG_TYPES).map((value) => {
      const text = JSON.stringify(body);
      const first = /^\{"([^"]+)":/.exec(text)?.[1] ?? 'name';
      const duplicate = `"${first}":${JSON.stringify(value)}`;
      return withRawBody('duplicate keys', Buffer.from(text === '{}' ? `{${duplicate},${duplicate}}` : `{${duplicate},${text.slice(1)}`));
    }),
    fc.constantFrom(...NOT_JSON).map((text) => withRawBody('not JSON', Buffer.from(text))),
    fc.nat({ max: 1000 }).map((cut) => {
      const text = JSON.stringify(body);
      return withRawBody('truncated JSON', Buffer.from(text.slice(0, Math.max(1, Math.floor((text.length * cut) / 1001)))));
    }),
    fc.constantFrom(...CONTENT_TYPES, undefined).map((contentType) => {
      const request = withBody('wrong content type', body);
      const { 'content-type': _, ...headers } = request.headers;
      return { ...request, headers: contentType === undefined ? headers : { ...headers, 'content-type': contentType } };
    }),
    fc.constantFrom(...ODD_METHODS).map((method) => ({ ...build(parts, world, 'odd method'), method, ...(method === 'HEAD' ? { body: undefined } : {}) })),
    fc.oneof(anyId(world, undefined), fc.constantFrom(...GARBAGE_SEGMENTS)).map((id) => {
      const path = operation.pathParams.length > 0 ? operation.path.replace(/\{[^}]+\}/, id) : `${operation.path}/${id}`;
      return build({ ...parts, path: path.replace(/\{[^}]+\}/g, id) }, world, 'ID of any prefix or workspace');
    }),
    fc
      .array(fc.tuple(fc.constantFrom(...operation.queryParams.map((parameter) => parameter.name), 'limit', 'cursor', 'unknown', 'limit[]', 'created[gte]', '__proto__[x]', 'q'), fc.constantFrom('', 'abc', '-1', '0', '101', '1e3', '1.5', 'true', 'null', '%', 'x'.repeat(2000), '\u0000', 'in_0', '2026-02-30', '[]', '{}')), { minLength: 1, maxLength: 6 })
      .map((extra) => build({ ...parts, query: [...parts.query, ...extra] }, world, 'hostile query')),
    fc.constantFrom<string | undefined>(undefined, '', ' ', 'k'.repeat(256), 'k'.repeat(4000), '\u00e9', ...usedKeys.slice(-5)).map((value) => {
      const request = build(parts, world, 'Idempotency-Key');
      const { 'idempotency-key': _, ...headers } = request.headers;
      return { ...request, headers: value === undefined ? headers : { ...headers, 'idempotency-key': value } };
    }),
    fc.constantFrom<string | undefined>(undefined, world.keys.foreign, world.keys.readOnly, ...BAD_KEYS).map((key) => {
      const request = build(parts, world, 'other credentials');
      const { authorization: _, ...headers } = request.headers;
      return { ...request, headers: key === undefined ? headers : { ...headers, authorization: key.startsWith('Basic') ? key : `Bearer ${key}` } };
    }),
  ];
  if (!operation.body) list.push(fc.constant(withBody('body where none is taken', { unexpected: true })));
  return list;
};

const CAMT = (body: string, version = 'camt.053.001.08') =>
  `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:${version}"><BkToCstmrStmt><GrpHdr><MsgId>F</MsgId><CreDtTm>2026-11-20T10:00:00</CreDtTm></GrpHdr>${body}</BkToCstmrStmt></Document>`;
const STATEMENT = (entry: string) =>
  `<Stmt><Id>S</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-20</Dt></Dt></Bal>${entry}</Stmt>`;
const ENTRY = (amount: string, currency: string, remittance: string, indicator = 'CRDT') =>
  `<Ntry><Amt Ccy="${currency}">${amount}</Amt><CdtDbtInd>${indicator}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-11-20</Dt></BookgDt><BkTxCd/><NtryDtls><TxDtls><RmtInf><Ustrd>${remittance}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`;
const XML_BODIES = [
  CAMT(STATEMENT(ENTRY('10.00', 'EUR', 'INV/2026/0001'))),
  CAMT(STATEMENT(ENTRY('0.01', 'EUR', 'RF18539007547034') + ENTRY('5', 'USD', 'x', 'DBIT'))),
  CAMT(STATEMENT(ENTRY('1.005', 'EUR', 'too many decimals'))),
  CAMT(STATEMENT(ENTRY('99999999999999999999.00', 'EUR', 'too large'))),
  CAMT(STATEMENT(ENTRY('1.00', 'XXX', 'not a currency'))),
  CAMT(STATEMENT(ENTRY('1.00', 'EUR', '&amp;&lt;&#0;&#x110000;&#55296;'))),
  CAMT(STATEMENT('')),
  CAMT(''),
  CAMT(STATEMENT(ENTRY('1.00', 'EUR', 'x')), 'camt.053.001.02'),
  CAMT(STATEMENT(ENTRY('1.00', 'EUR', 'x')), 'camt.054.001.08'),
  CAMT(STATEMENT(ENTRY('1.00', 'EUR', 'x')), 'camt.052.001.08'),
  CAMT(STATEMENT(ENTRY('1.00', 'EUR', 'x')), 'camt.053.001.99'),
  '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY b "bbbbbbbb"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">&c;</Document>',
  '<?xml version="1.0"?><!DOCTYPE a SYSTEM "http://127.0.0.1:1/x.dtd"><Document/>',
  `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">${'<a>'.repeat(5_000)}${'</a>'.repeat(5_000)}</Document>`,
  `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><![CDATA[${'x'.repeat(1000)}]]></Document>`,
  '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>',
  '<?xml version="1.0" encoding="UTF-16"?><Document/>',
  '',
  '{"a":1}',
  'not xml at all',
];

/**
 * Requests to an operation whose body is text of one media type (a bank statement, XML): valid
 * and hostile documents (entity expansion, external DTDs, deep nesting, truncation, wrong
 * versions, odd amounts), cut at random places, under every content type and credential.
 */
const textBodyRequests = (world: FuzzWorld, operation: DocumentedOperation, contentType: string, usedKeys: string[]): fc.Arbitrary<FuzzRequest> =>
  validParts(world, operation).chain((parts) => {
    const raw = (mutation: string, text: string | Buffer, type: string | undefined = contentType) => {
      const request = build({ ...parts, hasBody: false }, world, mutation);
      const { 'content-type': _, ...headers } = request.headers;
      return { ...request, body: Buffer.isBuffer(text) ? text : Buffer.from(text), headers: type === undefined ? headers : { ...headers, 'content-type': type } };
    };
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...XML_BODIES).map((text) => raw('valid', text)) },
      { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...XML_BODIES), fc.nat({ max: 1000 })).map(([text, cut]) => raw('truncated XML', text.slice(0, Math.floor((text.length * cut) / 1001)))) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...XML_BODIES), fc.constantFrom(...HOSTILE_STRINGS)).map(([text, hostile]) => raw('control characters', text.replace('x', hostile))) },
      { weight: 1, arbitrary: fc.constantFrom(...INVALID_UTF8).map((bytes) => raw('invalid UTF-8', Buffer.concat([Buffer.from(XML_BODIES[0]!.slice(0, 300)), Buffer.from(bytes), Buffer.from(XML_BODIES[0]!.slice(300))]))) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...XML_BODIES), fc.constantFrom(...CONTENT_TYPES, 'application/json', undefined)).map(([text, type]) => raw('wrong content type', text, type)) },
      { weight: 1, arbitrary: fc.constantFrom(...ODD_METHODS).map((method) => ({ ...raw('odd method', XML_BODIES[0]!), method, ...(method === 'HEAD' ? { body: undefined } : {}) })) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<string | undefined>(undefined, world.keys.foreign, world.keys.readOnly, ...BAD_KEYS).map((key) => {
          const request = raw('other credentials', XML_BODIES[0]!);
          const { authorization: _, ...headers } = request.headers;
          return { ...request, headers: key === undefined ? headers : { ...headers, authorization: key.startsWith('Basic') ? key : `Bearer ${key}` } };
        }),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom<string | undefined>(undefined, '', 'k'.repeat(256), ...usedKeys.slice(-5)).map((value) => {
          const request = raw('Idempotency-Key', XML_BODIES[1]!);
          const { 'idempotency-key': _, ...headers } = request.headers;
          return { ...request, headers: value === undefined ? headers : { ...headers, 'idempotency-key': value } };
        }),
      },
    );
  });

/** Valid requests alone: what the document says the operation takes, nothing mutated. */
export const validRequestArbitrary = (world: FuzzWorld, operation: DocumentedOperation): fc.Arbitrary<FuzzRequest> =>
  validParts(world, operation).map((parts) => build(parts, world, 'valid'));

/** Requests to one operation: valid ones (a third) and every kind of mutation of them. */
export const requestArbitrary = (world: FuzzWorld, operation: DocumentedOperation, usedKeys: string[]): fc.Arbitrary<FuzzRequest> =>
  operation.textBody ? textBodyRequests(world, operation, operation.textBody, usedKeys) : validParts(world, operation).chain((parts) =>
    fc.oneof({ weight: 8, arbitrary: fc.constant(build(parts, world, 'valid')) }, ...mutations(world, parts, usedKeys).map((arbitrary) => ({ weight: 1, arbitrary }))),
  );

export const describeRequest = (request: FuzzRequest): string => {
  const body = request.body === undefined ? '' : ` body(${request.body.length}B)=${request.body.toString('utf8', 0, 300)}`;
  return `[${request.mutation}] ${request.method} ${request.target.slice(0, 300)} ${JSON.stringify({ ...request.headers, authorization: request.headers.authorization ? '<key>' : undefined })}${body}`;
};
