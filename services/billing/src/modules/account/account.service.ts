import type { UpdateAccountBody } from '@invoicing/contracts';
import type { Clock } from '@invoicing/service-kit/clock';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/actor.ts';
import { accountChanges, accountView } from './account.domain.ts';
import { accountRepository } from './account.repository.ts';

export const accountService = (em: EntityManager, clock: Clock) => {
  const accounts = accountRepository(em);
  return {
    retrieve: async (actor: Actor) => ({ data: accountView(await accounts.settingsOf(actor.workspaceId, clock.now())) }),

    update: (actor: Actor, patch: UpdateAccountBody) =>
      em.transactional(async (tx) => {
        const now = clock.now();
        const row = await accounts.lockOrCreate(tx, actor.workspaceId, now);
        tx.assign(row, accountChanges(row, patch, now));
        return { data: accountView(row) };
      }),
  };
};

export type AccountService = ReturnType<typeof accountService>;
