import { newId, sqlOf, type Orm } from '@invoicing/service-kit';
import { sql } from 'kysely';
import type { GatewayDatabase } from '../../database.ts';
import { Workspace } from './workspace.entity.ts';

/** The workspace with this slug, created when the slug is new (safe when two operators race). */
export const findOrCreateWorkspace = async (orm: Orm, slug: string): Promise<Workspace> => {
  await sqlOf<GatewayDatabase>(orm.em)
    .insertInto('workspaces')
    .values({ id: newId(), slug, created: sql<Date>`now()` })
    .onConflict((conflict) => conflict.column('slug').doNothing())
    .execute();
  return orm.em.fork().findOneOrFail(Workspace, { slug });
};

export const listWorkspaces = (orm: Orm): Promise<Workspace[]> =>
  orm.em.fork().find(Workspace, {}, { orderBy: { created: 'asc', slug: 'asc' } });
