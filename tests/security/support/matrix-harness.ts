import { randomUUID } from 'node:crypto';
import { OPERATIONS, type Operation } from '@invoicing/contracts';
import { expect } from 'vitest';
import type { SeededWorkspace } from '../../fuzz/support/fixtures.ts';
import type { DocumentedOperation, JsonSchema, OpenApiDocument } from '../../fuzz/support/openapi.ts';
import { idPrefixOf, minimalValueOf } from '../../fuzz/support/schema-arbitrary.ts';

/**
 * What the matrices generated from the route table (security-matrix.test.ts, mode-matrix.test.ts)
 * share: sending a request as any client would, a request to each operation that would succeed
 * with real IDs, the state a workspace's reads show, and the ID fields of request bodies.
 */

/** What a matrix knows once its system runs; filled in by its `beforeAll`, read on each call. */
export interface MatrixContext {
  gatewayUrl: string;
  document: OpenApiDocument;
  documented: Map<string, DocumentedOperation>;
  /** The ID prefix of each collection (`/api/v1/customers` → `cus`). */
  prefixes: Map<string, string>;
  /** When set, every answer body kept (`keep`) is appended, to be scanned for secrets. */
  answers?: string[];
}

export interface Sent {
  status: number;
  contentType: string;
  headers: Headers;
  text: string;
  json: any;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
export const toTemplate = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');
export const collectionOf = (path: string) => path.split('/').slice(0, 4).join('/');

export const expectProblem = (sent: Sent, status: number, code: string, what: string) => {
  expect({ status: sent.status, code: sent.json?.code, problem: sent.contentType.startsWith('application/problem+json') }, what).toEqual({ status, code, problem: true });
};

/** An ID field a request body declares: its path (array items as index 0) and the prefix of the IDs it takes. */
export interface IdField {
  path: (string | number)[];
  prefix: string;
}

/** Each ID field a request schema declares: at the top, or inside objects and the items of arrays. */
export const idFieldsOf = (document: OpenApiDocument, schema: JsonSchema): IdField[] => {
  const fields: IdField[] = [];
  const walk = (raw: unknown, at: (string | number)[], depth: number) => {
    if (depth > 4 || !raw || typeof raw !== 'object') return;
    const node = raw as { $ref?: string; properties?: Record<string, unknown>; items?: unknown; anyOf?: unknown[]; example?: unknown; type?: unknown };
    const resolved = node.$ref ? document.components.schemas[node.$ref.replace('#/components/schemas/', '')] : node;
    const prefix = idPrefixOf(node as never);
    if (prefix && at.length > 0) fields.push({ path: at, prefix });
    for (const alternative of (resolved as typeof node)?.anyOf ?? []) walk(alternative, at, depth + 1);
    for (const [name, child] of Object.entries((resolved as typeof node)?.properties ?? {})) walk(child, [...at, name], depth + 1);
    if ((resolved as typeof node)?.items) walk((resolved as typeof node).items, [...at, 0], depth + 1);
  };
  walk(schema, [], 0);
  return fields;
};

/** The body with `id` at the field's path, creating the objects and one-item arrays on the way. */
export const withIdAt = (body: unknown, field: IdField, id: string): Record<string, any> => {
  const base = (body ?? {}) as Record<string, any>;
  let target: any = base;
  for (const key of field.path.slice(0, -1)) {
    target[key] ??= typeof field.path[field.path.indexOf(key) + 1] === 'number' ? [{}] : {};
    target = target[key];
  }
  target[field.path.at(-1)!] = id;
  return base;
};

/** The list reads of a workspace, with no path parameter: what `stateOf` reads. */
export const TOP_LEVEL_READS = OPERATIONS.filter((candidate) => candidate.method === 'GET' && candidate.scope && !candidate.path.includes(':'));

/** A well-formed ID that names nothing. */
const idOfNothing = (prefix: string) => `${prefix}_0190f3e2c1b27a8e9d1f3c4b5a697887`;

/**
 * The workspace's ID of a kind, as a request that should succeed names it: an invoice is the open
 * one (a payment's or a statement entry's target); other kinds, the first seeded; a kind the
 * workspace holds none of (one only the other mode can make), a well-formed ID of nothing.
 */
export const idOfKind = (workspace: SeededWorkspace, prefix: string): string => (prefix === 'in' ? workspace.invoices.open : (workspace.ids.get(prefix)?.[0] ?? idOfNothing(prefix)));

export const matrixHarness = (context: MatrixContext) => {
  const send = async (method: string, path: string, headers: Record<string, string>, body?: unknown, { keep = true } = {}): Promise<Sent> => {
    const response = await fetch(`${context.gatewayUrl}${path}`, {
      method,
      headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (keep) context.answers?.push(text);
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', headers: response.headers, text, json };
  };

  /** A request to the operation that would succeed for a key with its scope: real IDs of `workspace`, a valid minimal body. */
  const requestFor = (operation: Operation, workspace: SeededWorkspace, idOverride?: string) => {
    const path = operation.path.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
      if (idOverride) return idOverride;
      if (name === 'token') return workspace.tokens[0]!;
      // A statement's entry: the seed's last one, which no invoice took (it can still be matched by hand).
      if (name === 'entry_id') return workspace.ids.get('bse')!.at(-1)!;
      // A supporting document: the one seeded on the draft.
      if (name === 'att_id') return workspace.ids.get('att')![0]!;
      const prefix = context.prefixes.get(collectionOf(operation.path))!;
      // A kind the workspace holds none of (test clocks, for a live key): a well-formed ID of nothing.
      return workspace.ids.get(prefix)?.[0] ?? idOfNothing(prefix);
    });
    const body = context.documented.get(operation.operationId)?.body;
    return {
      path,
      headers: (operation.idempotency === 'none' ? {} : { 'idempotency-key': randomUUID() }) as Record<string, string>,
      body: body ? minimalValueOf(context.document, body.schema, (prefix) => idOfKind(workspace, prefix)) : undefined,
    };
  };

  /** Everything a workspace holds (in the mode of its key), as its lists and its account read. */
  const stateOf = async (workspace: SeededWorkspace) => {
    const reads: Record<string, unknown> = {};
    for (const operation of TOP_LEVEL_READS.filter((candidate) => !(candidate.testModeOnly && workspace.mode === 'live'))) {
      const { json } = await send('GET', operation.path.includes('numbering/verify') ? operation.path : `${operation.path}${operation.path.endsWith('account') || operation.path.includes('numbering') ? '' : '?limit=100'}`, bearer(workspace.key), undefined, { keep: false });
      // The time a verification ran is not state.
      if (json?.data?.checked_at) delete json.data.checked_at;
      reads[operation.operationId] = json;
    }
    return reads;
  };

  /**
   * The workspace's state once the events of earlier requests have reached its event log: they
   * arrive through the outbox and the bus, after the request that caused them has answered, so a
   * state read too early would see them appear during the next check. Read until two reads 300 ms
   * apart agree (5 s at most).
   */
  const settledStateOf = async (workspace: SeededWorkspace) => {
    const deadline = Date.now() + 5_000;
    let state = await stateOf(workspace);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const again = await stateOf(workspace);
      if (JSON.stringify(again) === JSON.stringify(state) || Date.now() > deadline) return again;
      state = again;
    }
  };

  return { send, requestFor, stateOf, settledStateOf };
};
