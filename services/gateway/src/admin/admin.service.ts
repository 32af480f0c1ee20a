import { toPublicId } from '@invoicing/contracts';
import { newId, type Orm } from '@invoicing/service-kit';
import { ApiKey } from '../modules/api-keys/api-key.entity.ts';
import { mintApiKey } from '../modules/api-keys/api-key.domain.ts';
import { findOrCreateWorkspace, listWorkspaces } from '../modules/workspaces/workspace.repository.ts';
import type { AdminCommand } from './admin-command.ts';

/** A well-formed command that cannot be carried out, such as revoking a key that does not exist: exit code 1. */
export class AdminError extends Error {
  override name = 'AdminError';
}

type Line = Record<string, unknown>;

const keyLine = (key: ApiKey) => ({
  key_id: toPublicId('apiKey', key.id),
  workspace_id: key.workspace.id,
  workspace: key.workspace.slug,
  scopes: key.scopes,
  mode: key.mode,
  created: key.created.toISOString(),
  revoked_at: key.revokedAt?.toISOString() ?? null,
});

/** Carries out one operator command; each returned object is printed as one JSON line. */
export const runAdminCommand = async (orm: Orm, command: AdminCommand): Promise<Line[]> => {
  switch (command.name) {
    case 'keys create': {
      const workspace = await findOrCreateWorkspace(orm, command.workspace);
      const em = orm.em.fork();
      const id = newId();
      const { key, keyHash } = mintApiKey(id, command.mode);
      em.create(ApiKey, { id, workspace: workspace.id, keyHash, scopes: command.scopes, mode: command.mode, created: new Date() });
      await em.flush();
      return [{ workspace_id: workspace.id, key_id: toPublicId('apiKey', id), mode: command.mode, key }];
    }
    case 'keys list': {
      const keys = await orm.em.fork().find(
        ApiKey,
        command.workspace === undefined ? {} : { workspace: { slug: command.workspace } },
        { populate: ['workspace'], orderBy: { created: 'asc', id: 'asc' } },
      );
      return keys.map(keyLine);
    }
    case 'keys revoke': {
      const em = orm.em.fork();
      const key = await em.findOne(ApiKey, command.keyId, { populate: ['workspace'] });
      if (!key) throw new AdminError(`No API key ${toPublicId('apiKey', command.keyId)}.`);
      // Revoking twice keeps the first time: the key has been dead since then.
      key.revokedAt ??= new Date();
      await em.flush();
      return [{ key_id: toPublicId('apiKey', key.id), revoked_at: key.revokedAt.toISOString() }];
    }
    case 'workspaces list': {
      const workspaces = await listWorkspaces(orm);
      return workspaces.map((workspace) => ({ workspace_id: workspace.id, slug: workspace.slug, created: workspace.created.toISOString() }));
    }
  }
};
