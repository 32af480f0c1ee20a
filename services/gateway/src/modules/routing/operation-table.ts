import type { Operation } from '@invoicing/contracts';

export type OperationTable = ReadonlyMap<string, Operation>;

const entryKey = (method: string, path: string) => `${method} ${path}`;

/** Operations by method and route path, as Fastify's router names the route a request matched. */
export const indexOperations = (operations: readonly Operation[]): OperationTable =>
  new Map(operations.map((operation) => [entryKey(operation.method, operation.path), operation]));

/** The operation a request calls; HEAD is answered as the GET of the same path. */
export const operationOf = (table: OperationTable, method: string, routePath: string | undefined): Operation | null =>
  routePath === undefined ? null : (table.get(entryKey(method === 'HEAD' ? 'GET' : method, routePath)) ?? null);
