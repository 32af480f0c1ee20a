import { parsePublicId, type IdKind } from '@invoicing/contracts';
import { notFound } from './app-error.ts';

/**
 * The row a path ID names, looked up in the caller's workspace by `find`. A malformed ID, another
 * resource's prefix, an unknown ID and another workspace's ID all answer the same 404, which
 * names the resource as `resource` (the ID kind unless given, as in `webhook endpoint`).
 */
export const loadByPublicId = async <Row>(
  kind: IdKind,
  publicId: string,
  find: (id: string) => Promise<Row | null>,
  resource: string = kind,
): Promise<Row> => {
  const id = parsePublicId(kind, publicId);
  const row = id === undefined ? null : await find(id);
  if (!row) throw notFound(resource, publicId);
  return row;
};
