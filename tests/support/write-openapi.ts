// Part of `npm run generate:client`: writes the OpenAPI document that the typed test client is
// generated from. A test checks that the gateway serves this same document, so they cannot drift.
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '@invoicing/contracts/openapi';

const target = new URL('./openapi.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
