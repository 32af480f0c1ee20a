import { newId, type Orm } from '@invoicing/service-kit';
import { sql } from 'kysely';
import { Workspace } from './workspace.entity.ts';

/** The workspace with this slug, created when the slug is new (safe when two operators race). */
export const findOrCreateWorkspace = async (orm: Orm, slug: string): Promise<Workspace> => {
  await sql`insert into gateway.workspaces (id, slug) values (${newId()}, ${slug}) on conflict (slug) do nothing`.execute(orm.em.getKysely());
  return orm.em.fork().findOneOrFail(Workspace, { slug });
};

export const listWorkspaces = (orm: Orm): Promise<Workspace[]> =>
  orm.em.fork().find(Workspace, {}, { orderBy: { created: 'asc', slug: 'asc' } });
