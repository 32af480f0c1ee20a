import type { Operation } from '@invoicing/contracts';

const segmentsOf = (path: string) => path.split('/');

/**
 * The methods each path of the contract table takes, for the 405 `Allow` header: a GET route
 * answers HEAD too. A `:param` segment matches any one non-empty segment.
 */
export const allowedMethodsOf = (operations: readonly Operation[]): ((path: string) => readonly string[] | undefined) => {
  const templates = new Map<string, Set<string>>();
  for (const operation of operations) {
    const methods = templates.get(operation.path) ?? new Set<string>();
    methods.add(operation.method);
    if (operation.method === 'GET') methods.add('HEAD');
    templates.set(operation.path, methods);
  }
  const compiled = [...templates].map(([template, methods]) => ({ segments: segmentsOf(template), methods: [...methods].sort() }));
  return (path) => {
    const segments = segmentsOf(path);
    const matches = compiled.filter(
      (template) =>
        template.segments.length === segments.length &&
        template.segments.every((part, index) => (part.startsWith(':') ? segments[index] !== '' : part === segments[index])),
    );
    if (matches.length === 0) return undefined;
    return [...new Set(matches.flatMap((match) => match.methods))].sort();
  };
};
