import { entityColumns, entityRow, sqlOf } from '@invoicing/service-kit/typed-sql';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { BillingDatabase } from '../../database.ts';
import { defaultAccount } from './account.domain.ts';
import { AccountEntity, type AccountRow } from './account.entity.ts';

export const accountRepository = (em: EntityManager) => ({
  /**
   * The saved settings, or the defaults of a workspace that never saved any (nothing is written).
   * Read on nearly every request, so one primary-key query, its row as plain data (no entity to track).
   */
  settingsOf: async (workspaceId: string, now: Date): Promise<AccountRow> => {
    // On the transaction of `em`, if any (sqlOf follows it): a keyed write reads the settings inside
    // its transaction, and a read on another connection would deadlock a burst as large as the pool.
    const row = await sqlOf<BillingDatabase>(em).selectFrom('accounts').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst();
    return entityRow(em, AccountEntity, row) ?? defaultAccount(workspaceId, now);
  },

  /** The row locked for update, created with the defaults first if the workspace has none. */
  lockOrCreate: async (tx: EntityManager, workspaceId: string, now: Date): Promise<AccountRow> => {
    await sqlOf<BillingDatabase>(tx)
      .insertInto('accounts')
      .values(entityColumns(tx, AccountEntity, defaultAccount(workspaceId, now)))
      .onConflict((oc) => oc.column('workspace_id').doNothing())
      .execute();
    return tx.findOneOrFail(AccountEntity, { workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  },
});
