// `npm run build -w @invoicing/client`: the package as people install it, in dist/: ESM with type
// declarations, compiled by tsc from src/, with its README and a manifest that names dist's files.
// `npm pack ./dist` (or `npm run pack -w @invoicing/client`) makes the tarball.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('../', import.meta.url);
const dist = new URL('dist/', root);
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', new URL('tsconfig.build.json', root).pathname], { stdio: 'inherit' });

const source = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as Record<string, unknown>;
const manifest = {
  name: source.name,
  version: source.version,
  description: source.description,
  license: source.license,
  type: 'module',
  exports: { '.': { types: './index.d.ts', default: './index.js' } },
  types: './index.d.ts',
  engines: { node: '>=20' },
  sideEffects: false,
  dependencies: source.dependencies,
};
writeFileSync(new URL('package.json', dist), `${JSON.stringify(manifest, null, 2)}\n`);
copyFileSync(new URL('README.md', root), new URL('README.md', dist));
console.log(`built ${dist.pathname}`);
