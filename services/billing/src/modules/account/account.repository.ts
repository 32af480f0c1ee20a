import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { defaultAccount } from './account.domain.ts';
import { AccountEntity, type AccountRow } from './account.entity.ts';

export const accountRepository = (em: EntityManager) => ({
  /** The saved settings, or the defaults of a workspace that never saved any (nothing is written). */
  settingsOf: async (workspaceId: string, now: Date): Promise<AccountRow> =>
    (await em.findOne(AccountEntity, { workspaceId })) ?? defaultAccount(workspaceId, now),

  /** The row locked for update, created with the defaults first if the workspace has none. */
  lockOrCreate: async (tx: EntityManager, workspaceId: string, now: Date): Promise<AccountRow> => {
    const defaults = defaultAccount(workspaceId, now);
    await tx
      .createQueryBuilder(AccountEntity)
      .insert(defaults)
      .onConflict('workspaceId')
      .ignore()
      .execute();
    return tx.findOneOrFail(AccountEntity, { workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  },
});
