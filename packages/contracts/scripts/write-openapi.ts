// Writes the OpenAPI document to dist/openapi.json, for the linter and the typed client.
import { mkdirSync, writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../src/openapi.ts';

const target = new URL('../dist/openapi.json', import.meta.url);
mkdirSync(new URL('.', target), { recursive: true });
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
