import { parsePublicId } from '@invoicing/contracts';
import { notFound } from '@invoicing/service-kit';

type CatalogKind = 'customer' | 'product' | 'price';

/**
 * The row a path ID names, looked up in the caller's workspace by `find`. A malformed ID, another
 * resource's prefix, an unknown ID and another workspace's ID all answer the same 404.
 */
export const loadByPublicId = async <Row>(
  kind: CatalogKind,
  publicId: string,
  find: (id: string) => Promise<Row | null>,
): Promise<Row> => {
  const id = parsePublicId(kind, publicId);
  const row = id === undefined ? null : await find(id);
  if (!row) throw notFound(kind, publicId);
  return row;
};
