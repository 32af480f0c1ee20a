import { toPublicId, type CreatePriceBody, type ListPricesQuery, type UpdatePriceBody } from '@invoicing/contracts';
import { loadByPublicId, notFound, type Clock, type CursorCodec } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { changeByPublicId } from '../../shared/by-public-id.ts';
import { productRepository } from '../products/product.repository.ts';
import { archivedPrice, newPrice, priceChanges, priceView } from './price.domain.ts';
import { PriceEntity, type PriceRow } from './price.entity.ts';
import { priceRepository } from './price.repository.ts';

export const priceService = (em: EntityManager, clock: Clock, cursors: CursorCodec) => {
  const prices = priceRepository(em);
  const products = productRepository(em);

  const changePrice = async (workspaceId: string, publicId: string, change: (row: PriceRow) => Partial<PriceRow>) => ({
    data: priceView(await changeByPublicId(em, PriceEntity, 'price', workspaceId, publicId, change)),
  });

  return {
    list: async (workspaceId: string, query: ListPricesQuery) => {
      const filter = { productId: query.product, active: query.active, currency: query.currency, type: query.type, metadata: query.metadata };
      const pages = cursors.forList('prices', workspaceId);
      const rows = await prices.pageNewestFirstQuery(workspaceId, filter, pages.positionOf(query.cursor), query.limit).getResultList();
      return pages.toPage(rows, query.limit, priceView);
    },

    create: async (workspaceId: string, body: CreatePriceBody) => {
      const row = newPrice(workspaceId, body, clock.now());
      // Products are archived, never removed, so one that exists now still exists at commit.
      if (!(await products.existsInWorkspace(workspaceId, body.product))) throw notFound('product', toPublicId('product', body.product));
      prices.add(row);
      await em.flush();
      return { data: priceView(row) };
    },

    retrieve: async (workspaceId: string, publicId: string) => ({
      data: priceView(await loadByPublicId('price', publicId, (id) => prices.findInWorkspace(workspaceId, id))),
    }),

    update: (workspaceId: string, publicId: string, patch: UpdatePriceBody) =>
      changePrice(workspaceId, publicId, (row) => priceChanges(row, patch)),

    archive: (workspaceId: string, publicId: string) => changePrice(workspaceId, publicId, archivedPrice),
  };
};

export type PriceService = ReturnType<typeof priceService>;
