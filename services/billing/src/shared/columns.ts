/**
 * A row as the JSON object PostgreSQL's `jsonb_populate_record` reads: property names become
 * column names the way the ORM names them (`snapshotSha256` → `snapshot_sha256`), Dates become
 * ISO strings. It lets one statement write a whole row, or many, without an ORM round trip each.
 */
export const columnName = (property: string): string => property.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

export const toColumns = (row: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(row).map(([key, value]) => [columnName(key), value ?? null]));

export const toColumnsJson = (rows: object | readonly object[]): string =>
  JSON.stringify(Array.isArray(rows) ? rows.map(toColumns) : toColumns(rows));
