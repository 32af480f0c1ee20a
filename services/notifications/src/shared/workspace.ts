import { parsePublicId } from '@invoicing/contracts';
import { AppError, callerOf } from '@invoicing/service-kit';
import type { FastifyRequest } from 'fastify';

/**
 * The workspace the gateway authenticated, as the UUID stored on every row. The gateway sends the
 * dashed UUID; the `ws_` form is accepted too. Anything else means the request did not come
 * through the gateway as it should, so it is refused rather than guessed at.
 */
export const workspaceOf = (request: FastifyRequest): string => {
  const workspaceId = parsePublicId('workspace', callerOf(request).workspaceId);
  if (workspaceId === undefined) throw new AppError('unauthenticated', 'The workspace header is not a workspace ID.');
  return workspaceId;
};
