import type { EntityDictionary } from '@mikro-orm/core';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { BILLING_SCHEMA } from '../../database.ts';
import { defaultAccount } from './account.domain.ts';
import { AccountEntity, type AccountRow } from './account.entity.ts';

const SETTINGS_SQL = `select * from "${BILLING_SCHEMA}".accounts where workspace_id = ?`;

export const accountRepository = (em: EntityManager) => ({
  /**
   * The saved settings, or the defaults of a workspace that never saved any (nothing is written).
   * Read on nearly every request, so one raw primary-key query mapped by the ORM.
   */
  settingsOf: async (workspaceId: string, now: Date): Promise<AccountRow> => {
    // On the transaction of `em`, if any: a keyed write reads the settings inside its transaction,
    // and a read on another connection would deadlock a burst as large as the pool.
    const [row] = await em.getConnection().execute<EntityDictionary<AccountRow>[]>(SETTINGS_SQL, [workspaceId], 'all', em.getTransactionContext());
    return row ? em.map(AccountEntity, row) : defaultAccount(workspaceId, now);
  },

  /** The row locked for update, created with the defaults first if the workspace has none. */
  lockOrCreate: async (tx: EntityManager, workspaceId: string, now: Date): Promise<AccountRow> => {
    await tx.createQueryBuilder(AccountEntity).insert(defaultAccount(workspaceId, now)).onConflict('workspaceId').ignore().execute();
    return tx.findOneOrFail(AccountEntity, { workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  },
});
