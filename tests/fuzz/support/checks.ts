import { matchOperation, type DocumentedOperation, type ResponseValidator } from './openapi.ts';
import type { RawAnswer, RawRequest } from './send.ts';

/** The codes `decisions.md` allows for each error status. */
export const CODES_BY_STATUS: Readonly<Record<number, readonly string[]>> = {
  400: ['invalid_request'],
  401: ['unauthenticated'],
  403: ['forbidden'],
  404: ['not_found'],
  405: ['method_not_allowed'],
  409: ['invalid_state', 'idempotency_key_reused', 'idempotency_key_in_use'],
  413: ['payload_too_large'],
  428: ['idempotency_key_required'],
  429: ['rate_limited'],
  503: ['unavailable'],
};

const PROBLEM = 'application/problem+json';

/** The statuses a request that names no operation (odd method, unknown path) may get. */
const NO_OPERATION_STATUSES = new Set([400, 404, 405, 413]);
/**
 * A known path with a method it does not take: 405 with `Allow`, unless the request was refused
 * first (a body too large or malformed, a path segment too long for any ID: 404).
 */
const WRONG_METHOD_STATUSES = NO_OPERATION_STATUSES;

/** Whether some operation has this path (with any method). */
const isKnownPath = (operations: readonly DocumentedOperation[], target: string): boolean =>
  operations.some((operation) => matchOperation([operation], operation.method, target) !== undefined);

const parse = (text: string): { value?: unknown; error?: string } => {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

/**
 * Every property one answer must have, whatever was sent: no 5xx; a status the document declares
 * for the operation; errors as problem+json with a matching status and code, valid against the
 * document's Problem schema; 2xx bodies of a documented media type, JSON ones valid against the
 * documented response schema. Returns the violations.
 */
export const violationsOf = async (
  operations: readonly DocumentedOperation[],
  validator: ResponseValidator,
  request: RawRequest,
  answer: RawAnswer,
): Promise<string[]> => {
  const violations: string[] = [];
  const { status } = answer;
  if (status >= 500) violations.push(`${status}: a server error`);
  const operation = matchOperation(operations, request.method, request.target);
  const mediaType = answer.contentType.split(';')[0]!.trim().toLowerCase();
  const hasBody = request.method !== 'HEAD' && answer.text.length > 0;
  if (!operation) {
    const knownPath = isKnownPath(operations, request.target);
    if (!(knownPath ? WRONG_METHOD_STATUSES : NO_OPERATION_STATUSES).has(status)) violations.push(`${status} for ${knownPath ? 'a method the path does not take' : 'a request that names no operation'}`);
    if (status === 405 && !answer.headers.allow) violations.push('405 without Allow');
    if (status === 405 && hasBody && !answer.text.includes('"method_not_allowed"')) violations.push('405 without code method_not_allowed');
    if (hasBody && mediaType !== PROBLEM) violations.push(`${status} as ${mediaType || 'no content type'}, not problem+json`);
    return violations;
  }
  const documented = operation.responses.get(status);
  const declared = documented?.map((type) => type.split(';')[0]!.trim().toLowerCase());
  if (!declared) violations.push(`${status} is not declared for ${operation.operationId} (declares ${[...operation.responses.keys()].join(', ')})`);
  if (!hasBody) {
    if (status >= 400 && request.method !== 'HEAD') violations.push(`${status} without a problem body`);
    if (status < 300 && request.method !== 'HEAD' && declared && declared.length > 0) violations.push(`${status} with an empty body`);
    return violations;
  }
  if (status === 204) violations.push('204 with a body');
  if (status >= 400) {
    if (mediaType !== PROBLEM) violations.push(`${status} as ${mediaType || 'no content type'}, not problem+json`);
    const { value, error } = parse(answer.text);
    if (error) return [...violations, `${status} problem body is not JSON: ${error}`];
    const problem = value as { status?: unknown; code?: unknown };
    if (problem.status !== status) violations.push(`problem status ${String(problem.status)} on a ${status}`);
    if (!CODES_BY_STATUS[status]?.includes(String(problem.code))) violations.push(`code ${String(problem.code)} on a ${status}`);
    if (declared?.includes(PROBLEM)) {
      const invalid = await validator.check(operation, status, PROBLEM, value);
      if (invalid) violations.push(`problem body breaks the documented schema: ${invalid}`);
    }
    return violations;
  }
  if (declared && !declared.includes(mediaType)) violations.push(`${status} as ${mediaType}, documented: ${declared.join(', ')}`);
  if (declared?.includes(mediaType) && mediaType === 'application/json') {
    const { value, error } = parse(answer.text);
    if (error) return [...violations, `${status} JSON body does not parse: ${error}`];
    const invalid = await validator.check(operation, status, documented![declared.indexOf(mediaType)]!, value);
    if (invalid) violations.push(`${status} body breaks the documented schema: ${invalid}`);
  }
  return violations;
};

/** Requests and answers by operation × status, and by mutation × status, printed as tables. */
export class Figures {
  readonly #byOperation = new Map<string, Map<number, number>>();
  readonly #byMutation = new Map<string, Map<number, number>>();
  total = 0;

  record(operationId: string, mutation: string, status: number): void {
    this.total += 1;
    for (const [table, row] of [[this.#byOperation, operationId], [this.#byMutation, mutation]] as const) {
      const counts = table.get(row) ?? new Map<number, number>();
      counts.set(status, (counts.get(status) ?? 0) + 1);
      table.set(row, counts);
    }
  }

  statusesOf(operationId: string): ReadonlyMap<number, number> {
    return this.#byOperation.get(operationId) ?? new Map();
  }

  static #table(title: string, table: Map<string, Map<number, number>>): string {
    const statuses = [...new Set([...table.values()].flatMap((counts) => [...counts.keys()]))].sort((a, b) => a - b);
    const width = Math.max(title.length, ...[...table.keys()].map((key) => key.length));
    const header = `${title.padEnd(width)} ${statuses.map((status) => String(status).padStart(6)).join('')}  total`;
    const rows = [...table.entries()].map(([row, counts]) => {
      const cells = statuses.map((status) => String(counts.get(status) ?? '·').padStart(6)).join('');
      return `${row.padEnd(width)} ${cells}  ${[...counts.values()].reduce((sum, n) => sum + n, 0)}`;
    });
    return [header, ...rows].join('\n');
  }

  render(): string {
    return `${Figures.#table('operation', this.#byOperation)}\n\n${Figures.#table('mutation', this.#byMutation)}\n\n${this.total} requests`;
  }
}
