/**
 * Rows as the JSON PostgreSQL's `jsonb_populate_record(set)` reads, keyed by the column names the
 * ORM's metadata gives each property (never guessed from the property's spelling), so one
 * statement can write a whole row, or many, without an ORM round trip each. Dates become ISO text.
 */
import type { EntitySchema } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

const columnsByEntity = new WeakMap<object, Map<string, string>>();

const columnsOf = (em: EntityManager, entity: EntitySchema<any, any>): Map<string, string> => {
  let columns = columnsByEntity.get(entity);
  if (!columns) {
    const { properties } = em.getMetadata(entity.meta.class ?? entity.meta.className);
    columns = new Map(Object.values(properties).flatMap((property) => (property.fieldNames?.[0] ? [[property.name, property.fieldNames[0]] as const] : [])));
    columnsByEntity.set(entity, columns);
  }
  return columns;
};

/** The column a property is stored in. */
export const columnOf = (em: EntityManager, entity: EntitySchema<any, any>, property: string): string => {
  const column = columnsOf(em, entity).get(property);
  if (!column) throw new Error(`${entity.meta.className} has no column for ${property}`);
  return column;
};

const toColumns = (em: EntityManager, entity: EntitySchema<any, any>, row: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(row).map(([property, value]) => [columnOf(em, entity, property), value ?? null]));

export const columnRowsJson = (em: EntityManager, entity: EntitySchema<any, any>, rows: object | readonly object[]): string =>
  JSON.stringify(Array.isArray(rows) ? rows.map((row) => toColumns(em, entity, row)) : toColumns(em, entity, rows));
