// `npm run sql:write`: writes every repository's committed SQL file from the code's statements, on
// throwaway databases of the PostgreSQL that DATABASE_URL names (default: the local one on 5432).
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { generateServiceSql, writeServiceSql } from '@invoicing/testing/committed-sql';
import pg from 'pg';
import { SERVICES_WITH_COMMITTED_SQL } from './services.ts';

const server = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
const root = resolve(import.meta.dirname, '../..');

const onServer = async (statement: string): Promise<void> => {
  const maintenance = new URL(server);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
};

for (const service of SERVICES_WITH_COMMITTED_SQL) {
  const name = `committed_sql_${randomBytes(4).toString('hex')}`;
  await onServer(`create database "${name}"`);
  try {
    const url = new URL(server);
    url.pathname = `/${name}`;
    const { files, missingFromSchema } = await generateServiceSql(service, url.toString());
    if (missingFromSchema.length > 0) console.warn(`${service.folder}: entities name what the migrated schema lacks:\n  ${missingFromSchema.join('\n  ')}`);
    const changed = await writeServiceSql(root, files);
    console.log(`${service.folder}: ${changed.length === 0 ? 'unchanged' : `wrote ${changed.join(', ')}`}`);
  } finally {
    await onServer(`drop database if exists "${name}" with (force)`);
  }
}
