import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createTestDatabase } from '@invoicing/testing';
import { generateServiceSql } from '@invoicing/testing/committed-sql';
import { describe, expect, it } from 'vitest';
import { SERVICES_WITH_COMMITTED_SQL } from '../sql/services.ts';

// Each repository's statements are committed as SQL beside it, so that a reviewer reads a query
// change as SQL. This fails when the code sends other statements than its file shows: run
// `npm run sql:write` and review the diff.

const ROOT = resolve(import.meta.dirname, '../..');

describe.each(SERVICES_WITH_COMMITTED_SQL.map((service) => [service.folder, service] as const))('committed SQL of %s', (_, service) => {
  it('is what the code sends to PostgreSQL, in names the migrated schema has', async () => {
    const database = await createTestDatabase('committed_sql');
    try {
      const { files, missingFromSchema } = await generateServiceSql(service, database.url);
      // Kysely's types come from the entities: they are the schema's only while every entity names what the migrations made.
      expect(missingFromSchema, 'entities that name tables or columns the migrated schema lacks').toEqual([]);
      expect(files.size).toBeGreaterThan(0);
      for (const [path, text] of files) {
        const committed = await readFile(join(ROOT, path), 'utf8').catch(() => '(missing)');
        expect(committed, `${path} is out of date: run npm run sql:write`).toBe(text);
      }
    } finally {
      await database.drop();
    }
  });
});
