import { parsePublicId, toPublicId } from '@invoicing/contracts';
import { callerOf, workspaceIdOf, type Caller, type EventOrigin } from '@invoicing/service-kit';
import type { FastifyRequest } from 'fastify';

/** Who acts: the caller the gateway authenticated (passed on to catalog and billing), its workspace UUID and its event origin. */
export interface Actor {
  caller: Caller;
  workspaceId: string;
  origin: EventOrigin;
}

const publicKeyId = (sent: string): string => {
  const uuid = parsePublicId('apiKey', sent);
  return uuid === undefined ? sent : toPublicId('apiKey', uuid);
};

export const actorOf = (request: FastifyRequest): Actor => {
  const caller = callerOf(request);
  const workspaceId = workspaceIdOf(caller);
  return {
    caller,
    workspaceId,
    origin: { workspaceId, requestId: caller.requestId, keyId: publicKeyId(caller.apiKeyId), idempotencyKey: caller.idempotencyKey ?? null },
  };
};

/** The scheduler acts for no API key: billing records `system` as the key of what it does. */
export const systemActor = (workspaceId: string, requestId: string): Actor => ({
  caller: { workspaceId, apiKeyId: 'system', requestId, idempotencyKey: undefined },
  workspaceId,
  origin: { workspaceId, requestId, keyId: null, idempotencyKey: null },
});
