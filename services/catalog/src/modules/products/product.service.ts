import type { CreateProductBody, ListProductsQuery, UpdateProductBody } from '@invoicing/contracts';
import { loadByPublicId, type Clock, type CursorCodec } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { changeByPublicId } from '../../shared/by-public-id.ts';
import { ARCHIVE, newProduct, productChanges, productPatch, productView, type EditableProduct } from './product.domain.ts';
import { ProductEntity, type ProductRow } from './product.entity.ts';
import { productRepository } from './product.repository.ts';

export const productService = (em: EntityManager, clock: Clock, cursors: CursorCodec) => {
  const products = productRepository(em);

  const changeProduct = async (workspaceId: string, publicId: string, propose: (row: ProductRow) => Partial<EditableProduct>) => ({
    data: productView(await changeByPublicId(em, ProductEntity, 'product', workspaceId, publicId, (row) => productChanges(row, propose(row), clock.now()))),
  });

  return {
    list: async (workspaceId: string, query: ListProductsQuery) => {
      const filter = { q: query.q, active: query.active, metadata: query.metadata };
      const pages = cursors.forList('products', workspaceId);
      const rows = await products.pageNewestFirstQuery(workspaceId, filter, pages.positionOf(query.cursor), query.limit).getResultList();
      return pages.toPage(rows, query.limit, productView);
    },

    create: async (workspaceId: string, body: CreateProductBody) => {
      const row = products.add(newProduct(workspaceId, body, clock.now()));
      await em.flush();
      return { data: productView(row) };
    },

    retrieve: async (workspaceId: string, publicId: string) => ({
      data: productView(await loadByPublicId('product', publicId, (id) => products.findInWorkspace(workspaceId, id))),
    }),

    update: (workspaceId: string, publicId: string, patch: UpdateProductBody) =>
      changeProduct(workspaceId, publicId, (row) => productPatch(row, patch)),

    archive: (workspaceId: string, publicId: string) => changeProduct(workspaceId, publicId, () => ARCHIVE),
  };
};

export type ProductService = ReturnType<typeof productService>;
