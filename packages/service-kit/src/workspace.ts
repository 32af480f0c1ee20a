import { parsePublicId } from '@invoicing/contracts';
import type { FastifyRequest } from 'fastify';
import { AppError } from './app-error.ts';
import { callerOf, type Caller } from './http-app.ts';

/**
 * The workspace the gateway authenticated, as the UUID stored on every row. The gateway sends the
 * dashed UUID; the `ws_` form is accepted too. Anything else means the request did not come
 * through the gateway as it should, so it is refused rather than guessed at.
 */
export const workspaceIdOf = (caller: Caller): string => {
  const workspaceId = parsePublicId('workspace', caller.workspaceId);
  if (workspaceId === undefined) throw new AppError('unauthenticated', 'The workspace header is not a workspace ID.');
  return workspaceId;
};

/** The workspace of the request's caller, as {@link workspaceIdOf} reads it. */
export const workspaceOf = (request: FastifyRequest): string => workspaceIdOf(callerOf(request));
