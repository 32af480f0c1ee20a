import type { Operation } from '@invoicing/contracts';

/** The operations one route serves, by request method (HEAD answered as the GET of the path). */
export type RouteOperations = Readonly<Record<string, Operation>>;

/** What a route registered for `url` and `methods` serves of the table; undefined when nothing. */
export const routeOperations = (operations: readonly Operation[], url: string, methods: readonly string[]): RouteOperations | undefined => {
  const served: Record<string, Operation> = {};
  for (const method of methods) {
    const operation = operations.find((candidate) => candidate.path === url && candidate.method === (method === 'HEAD' ? 'GET' : method));
    if (operation) served[method] = operation;
  }
  return Object.keys(served).length > 0 ? served : undefined;
};
