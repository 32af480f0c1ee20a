import { parsePublicId } from '@invoicing/contracts';
import { notFound } from '@invoicing/service-kit';

const RESOURCE_NAMES = { webhookEndpoint: 'webhook endpoint', event: 'event' } as const;

/**
 * The row a path ID names, looked up in the caller's workspace by `find`. A malformed ID, another
 * resource's prefix, an unknown ID and another workspace's ID all answer the same 404.
 */
export const loadByPublicId = async <Row>(kind: keyof typeof RESOURCE_NAMES, publicId: string, find: (id: string) => Promise<Row | null>): Promise<Row> => {
  const id = parsePublicId(kind, publicId);
  const row = id === undefined ? null : await find(id);
  if (!row) throw notFound(RESOURCE_NAMES[kind], publicId);
  return row;
};
