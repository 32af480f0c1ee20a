import { defineEntity, p } from '@mikro-orm/postgresql';

/** The tenant: every API key, and all data behind it, belongs to one workspace. */
export const WorkspaceSchema = defineEntity({
  name: 'Workspace',
  tableName: 'workspaces',
  properties: {
    id: p.uuid().primary(),
    slug: p.text().unique('workspaces_slug_unique'),
    created: p.datetime().onCreate(() => new Date()),
  },
});

export class Workspace extends WorkspaceSchema.class {}
WorkspaceSchema.setClass(Workspace);
